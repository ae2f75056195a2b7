package dev.mcpgate.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.mcpgate.core.ClaimId;
import dev.mcpgate.core.FailureReason;
import dev.mcpgate.core.GateResult;
import dev.mcpgate.core.IdempotencyGate;
import dev.mcpgate.core.LeaseToken;
import dev.mcpgate.core.ResultMapper;
import dev.mcpgate.core.StoreUnavailableException;
import dev.mcpgate.core.ToolCall;
import dev.mcpgate.core.spi.ClaimAttempt;
import dev.mcpgate.core.spi.ClaimRequest;
import dev.mcpgate.core.spi.ForwardingIdempotencyStore;
import dev.mcpgate.core.spi.HeldLease;
import dev.mcpgate.core.spi.IdempotencyStore;
import dev.mcpgate.core.spi.StoredResult;
import dev.mcpgate.store.tck.IdempotencyStoreContract;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.codec.ByteArrayCodec;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The store contract on a real Redis Cluster (three masters with a replica each), plus what only a
 * cluster asks: claims on every master, the renewal pipeline across nodes, {@code verify()} per
 * master, and a manual failover in the middle of a run.
 */
class RedisClusterStoreTest extends IdempotencyStoreContract {
  static final String PREFIX = "mcpgate-test:";
  private RedisIdempotencyStore clusterStore;

  @Override
  protected IdempotencyStore createStore() {
    clusterStore = storeOn(TestRedisCluster.client());
    return clusterStore;
  }

  /**
   * @param client the cluster client the test administers the cluster with
   * @return the store under test: here one on that client, with its options
   */
  protected RedisIdempotencyStore storeOn(RedisClusterClient client) {
    return RedisIdempotencyStore.builder(client).keyPrefix(PREFIX).build();
  }

  @Override
  protected void closeStore() {
    if (clusterStore != null) {
      clusterStore.close();
    }
  }

  @Override
  protected int threadsOnOneKey() {
    return 64;
  }

  @Override
  protected int[] threadsAndKeys() {
    return new int[] {16, 1000};
  }

  /**
   * @return the master that serves {@code key}'s slot, as host:port, by CLUSTER KEYSLOT
   */
  private static String masterOf(StatefulRedisClusterConnection<byte[], byte[]> c, byte[] key) {
    int slot = c.sync().clusterKeyslot(key).intValue();
    RedisClusterNode master = c.getPartitions().getMasterBySlot(slot);
    return master.getUri().getHost() + ":" + master.getUri().getPort();
  }

  private static List<RedisClusterNode> masters(StatefulRedisClusterConnection<?, ?> c) {
    return c.getPartitions().stream()
        .filter(n -> n.is(RedisClusterNode.NodeFlag.UPSTREAM))
        .toList();
  }

  @Test
  void claimsSpreadOverEveryMasterAndLiveOnTheMasterOfTheirSlot() {
    ClaimKeys keys = ClaimKeys.hashTagged(PREFIX);
    Map<String, Integer> perMaster = new TreeMap<>();
    try (StatefulRedisClusterConnection<byte[], byte[]> c =
        TestRedisCluster.client().connect(ByteArrayCodec.INSTANCE)) {
      TestRedisCluster.client().refreshPartitions();
      for (int i = 0; i < 300; i++) {
        ClaimId id = id("spread-" + i);
        assertThat(claim(id, "v1:a", LeaseToken.random(), LONG))
            .isInstanceOf(ClaimAttempt.Acquired.class);
        byte[] key = keys.of(id);
        String master = masterOf(c, key);
        perMaster.merge(master, 1, Integer::sum);
        RedisClusterNode node =
            c.getPartitions().getMasterBySlot(c.sync().clusterKeyslot(key).intValue());
        assertThat(c.getConnection(node.getNodeId()).sync().exists(key))
            .as("claim %s is on %s, the master of its slot", id.key(), master)
            .isEqualTo(1L);
      }
      System.err.println("[mcpgate tests] Redis Cluster: 300 claims per master " + perMaster);
      java.util.Set<String> serving = new java.util.TreeSet<>();
      for (int slot = 0; slot < io.lettuce.core.cluster.SlotHash.SLOT_COUNT; slot++) {
        RedisURI uri = c.getPartitions().getMasterBySlot(slot).getUri();
        serving.add(uri.getHost() + ":" + uri.getPort());
      }
      assertThat(perMaster.keySet())
          .as("every master that serves slots holds claims")
          .isEqualTo(serving)
          .hasSizeGreaterThanOrEqualTo(3);
      assertThat(perMaster.values()).allSatisfy(n -> assertThat(n).isGreaterThan(50));
    }
  }

  @Test
  void keysWithBracesStillSpreadOverTheSlots() {
    ClaimKeys keys = ClaimKeys.hashTagged(PREFIX);
    java.util.Set<Integer> slots = new java.util.HashSet<>();
    for (int i = 0; i < 50; i++) {
      byte[] key = keys.of(new ClaimId("{tenant}", "{tool}", "{same}" + i));
      slots.add(io.lettuce.core.cluster.SlotHash.getSlot(key));
    }
    assertThat(slots)
        .as("braces in tenant, tool or key do not pick the slot")
        .hasSizeGreaterThan(40);
  }

  @Test
  void theSingleNodeLayoutIsUnchangedAndTheClusterLayoutAddsOnlyATag() {
    ClaimId id = new ClaimId("t", "tool", "k");
    assertThat(new String(new ClaimKeys("p:").of(id), StandardCharsets.UTF_8))
        .isEqualTo("p:1:t|4:tool|1:k");
    assertThat(new String(ClaimKeys.hashTagged("p:").of(id), StandardCharsets.UTF_8))
        .matches("p:\\{[0-9a-f]{8}\\}1:t\\|4:tool\\|1:k");
  }

  @Test
  void aStoreForOneServerRefusesAClusterNodeAtVerify() {
    RedisIdempotencyStore oneServer =
        RedisIdempotencyStore.builder(TestRedisCluster.seeds().get(0)).build();
    try {
      assertThatThrownBy(oneServer::verify)
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("cluster_enabled:1")
          .hasMessageContaining("clusterBuilder")
          .hasMessageContaining("mcpgate.redis.cluster=true");
    } finally {
      oneServer.close();
    }
    assertThatCode(() -> NodeChecks.refuseAClusterNode("# Cluster\r\ncluster_enabled:0\r\n"))
        .doesNotThrowAnyException();
    assertThatCode(() -> NodeChecks.refuseAClusterNode(null)).doesNotThrowAnyException();
  }

  @Test
  void aClusterPrefixWithABraceIsRefusedByName() {
    assertThatThrownBy(
            () ->
                RedisIdempotencyStore.builder(TestRedisCluster.client())
                    .keyPrefix("app{x}:")
                    .build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("\"app{x}:\"")
        .hasMessageContaining("one slot");
    assertThatThrownBy(() -> RedisIdempotencyStore.clusterBuilder(List.of()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("seed");
  }

  @Test
  void extendLeasesRenewsLeasesOnEveryMasterAndReloadsTheScriptWhereANodeForgotIt()
      throws Exception {
    List<HeldLease> leases = new ArrayList<>();
    for (int i = 0; i < 60; i++) {
      ClaimId id = id("renew-" + i);
      LeaseToken token = LeaseToken.random();
      assertThat(clusterStore.claim(new ClaimRequest(id, "v1:a", token, shortLease(), LONG)))
          .isInstanceOf(ClaimAttempt.Acquired.class);
      leases.add(new HeldLease(id, token));
    }
    assertThat(clusterStore.extendLeases(leases, LONG, RENEWAL_DEADLINE).extended()).hasSize(60);
    try (StatefulRedisClusterConnection<String, String> admin =
        TestRedisCluster.client().connect()) {
      admin.sync().scriptFlush(); // every master forgets the scripts
    }

    assertThat(clusterStore.extendLeases(leases, LONG, RENEWAL_DEADLINE).extended()).hasSize(60);
    elapse(shortLease());
    for (HeldLease held : leases) {
      assertThat(claim(held.id(), "v1:a", LeaseToken.random(), LONG))
          .as("the lease of %s was extended", held.id().key())
          .isInstanceOf(ClaimAttempt.Existing.class);
    }
  }

  @Test
  void verifyChecksEveryMasterAndWarnsOfAnEvictingOne() throws InterruptedException {
    // the failover test of this class turns a replica into a master; until every node agrees, a
    // node picked from one view may be a replica in the view verify() reads, whose policy it
    // rightly never reads (a CI run failed so, with the test's refresh alone)
    TestRedisCluster.awaitSettledTopology();
    try (StatefulRedisClusterConnection<String, String> admin =
        TestRedisCluster.client().connect()) {
      RedisClusterNode first = masters(admin).get(0);
      StatefulRedisConnection<String, String> node = admin.getConnection(first.getNodeId());
      String old = node.sync().configGet("maxmemory-policy").get("maxmemory-policy");
      try {
        node.sync().configSet("maxmemory-policy", "allkeys-lru");
        String log = logOf(clusterStore::verify);
        assertThat(log)
            .contains("WARN")
            .contains("Cluster master " + first.getUri().getHost() + ":" + first.getUri().getPort())
            .contains("maxmemory-policy is allkeys-lru");
        node.sync().configSet("maxmemory-policy", "noeviction");
        assertThat(logOf(clusterStore::verify)).doesNotContain("maxmemory-policy");
      } finally {
        node.sync().configSet("maxmemory-policy", old);
      }
    }
  }

  /** Records the completions Redis acknowledged (the script answered 1). */
  private static final class Acknowledged extends ForwardingIdempotencyStore {
    final Map<String, String> results = new ConcurrentHashMap<>();
    final AtomicInteger failed = new AtomicInteger();

    Acknowledged(IdempotencyStore delegate) {
      super(delegate);
    }

    @Override
    public boolean complete(ClaimId id, LeaseToken token, StoredResult result, Duration retention) {
      try {
        boolean done = super.complete(id, token, result, retention);
        if (done) {
          results.put(id.key(), new String(result.body(), StandardCharsets.UTF_8));
        }
        return done;
      } catch (RuntimeException e) {
        failed.incrementAndGet();
        throw e;
      }
    }
  }

  /**
   * Key {@code k}'s call once more, as its caller would send it: again while the store answers that
   * it is unavailable (nothing ran, safe to retry), as a connection to a node that changed role may
   * still be reconnecting after the topology settled.
   */
  private GateResult<String> afterTheFailover(IdempotencyGate gate, int k)
      throws InterruptedException {
    GateResult<String> r = null;
    for (int attempt = 0; attempt < 100; attempt++) {
      r =
          gate.execute(
              call("failover-" + k, Map.of("n", k)), ResultMapper.utf8(), ctx -> "ran again");
      if (!(r instanceof GateResult.Failed<String> f
          && f.reason() == FailureReason.STORE_UNAVAILABLE)) {
        return r;
      }
      Thread.sleep(50);
    }
    return r;
  }

  @Test
  void aManualFailoverMidRunRunsNoActionTwiceAndLosesNoAcknowledgedResult() throws Exception {
    int keys = 600;
    int threads = 12;
    Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();
    AtomicInteger refusedOrUnavailable = new AtomicInteger();
    AtomicInteger done = new AtomicInteger();
    RedisClusterClient client = TestRedisCluster.newClient();
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try (RedisIdempotencyStore redis = storeOn(client);
        StatefulRedisClusterConnection<String, String> admin = client.connect()) {
      Acknowledged acked = new Acknowledged(redis);
      IdempotencyGate gate = IdempotencyGate.builder(acked).build();
      CountDownLatch start = new CountDownLatch(1);
      List<Future<?>> workers = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        int first = t;
        workers.add(
            pool.submit(
                () -> {
                  start.await();
                  for (int round = 0; round < 2; round++) { // every key called twice
                    for (int k = first; k < keys; k += threads) {
                      ToolCall call = call("failover-" + k, Map.of("n", k));
                      for (int attempt = 0; attempt < 200; attempt++) {
                        try {
                          GateResult<String> r =
                              gate.execute(
                                  call,
                                  ResultMapper.utf8(),
                                  ctx -> {
                                    runs.computeIfAbsent(call.id().key(), x -> new AtomicInteger())
                                        .incrementAndGet();
                                    return "done " + call.id().key();
                                  });
                          if (r instanceof GateResult.Executed
                              || r instanceof GateResult.Replayed) {
                            break;
                          }
                          refusedOrUnavailable.incrementAndGet();
                        } catch (StoreUnavailableException notRun) {
                          refusedOrUnavailable.incrementAndGet();
                        }
                        Thread.sleep(20);
                      }
                      done.incrementAndGet();
                    }
                  }
                  return null;
                }));
      }
      start.countDown();
      while (done.get() < keys / 2) {
        Thread.sleep(5);
      }

      RedisClusterNode master = masters(admin).get(0);
      RedisClusterNode replica =
          admin.getPartitions().stream()
              .filter(n -> master.getNodeId().equals(n.getSlaveOf()))
              .findFirst()
              .orElseThrow();
      int doneAtFailover = done.get();
      RedisClient direct = RedisClient.create(replica.getUri());
      try (StatefulRedisConnection<String, String> toReplica = direct.connect()) {
        long linked = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
        while (!toReplica.sync().info("replication").contains("master_link_status:up")) {
          assertThat(System.nanoTime()).as("the replica is in sync within 15 s").isLessThan(linked);
          Thread.sleep(20);
        }
        assertThat(toReplica.sync().clusterFailover(false)).isEqualTo("OK");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
        while (!"master".equals(String.valueOf(toReplica.sync().role().get(0)))) {
          assertThat(System.nanoTime())
              .as("the replica became master within 15 s")
              .isLessThan(deadline);
          Thread.sleep(20);
        }
      } finally {
        direct.shutdown();
      }
      int doneAfterFailover = done.get();
      TestRedisCluster.awaitSettledTopology(); // leaves one view of the cluster to later tests

      for (Future<?> w : workers) {
        w.get(120, TimeUnit.SECONDS);
      }
      System.err.println(
          "[mcpgate tests] Redis Cluster failover: "
              + replica.getUri()
              + " took over from "
              + master.getUri()
              + " with "
              + doneAtFailover
              + " of "
              + (2 * keys)
              + " calls answered ("
              + doneAfterFailover
              + " when it was master); "
              + acked.results.size()
              + " completions acknowledged, "
              + acked.failed.get()
              + " completions failed, "
              + refusedOrUnavailable.get()
              + " calls refused or not run"
              + " (then retried)");

      assertThat(runs.values())
          .as("no action ran twice")
          .allSatisfy(n -> assertThat(n).hasValue(1));
      assertThat(runs).as("every key's action ran").hasSize(keys);
      // a completion may fail in the failover (its connection closed with it in flight, on a
      // client that rejects rather than buffers): its result is not stored, and the key must stay
      // fenced, never run again
      assertThat(acked.results.size() + acked.failed.get())
          .as("each key's one completion was acknowledged or failed")
          .isEqualTo(keys);
      for (int k = 0; k < keys; k++) {
        if (!acked.results.containsKey("failover-" + k)) {
          assertThat(afterTheFailover(gate, k))
              .as("failover-%d, whose completion failed, is not run again", k)
              .isNotInstanceOf(GateResult.Executed.class);
        }
      }
      for (Map.Entry<String, String> ack : acked.results.entrySet()) {
        assertThat(
                afterTheFailover(
                    gate, Integer.parseInt(ack.getKey().substring("failover-".length()))))
            .as("the acknowledged result of %s", ack.getKey())
            .isInstanceOfSatisfying(
                GateResult.Replayed.class, r -> assertThat(r.value()).isEqualTo(ack.getValue()));
      }
    } finally {
      pool.shutdownNow();
      client.shutdown();
    }
  }

  /**
   * @return what slf4j-simple wrote to System.err while {@code action} ran
   */
  private static String logOf(Runnable action) {
    java.io.PrintStream err = System.err;
    java.io.ByteArrayOutputStream captured = new java.io.ByteArrayOutputStream();
    System.setErr(new java.io.PrintStream(captured, true, StandardCharsets.UTF_8));
    try {
      action.run();
    } finally {
      System.setErr(err);
    }
    return captured.toString(StandardCharsets.UTF_8);
  }
}
