package dev.mcpgate.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.core.ClaimId;
import dev.mcpgate.core.LeaseToken;
import dev.mcpgate.core.StoreUnavailableException;
import dev.mcpgate.core.spi.ClaimAttempt;
import dev.mcpgate.core.spi.ClaimRequest;
import dev.mcpgate.core.spi.ExtendedLeases;
import dev.mcpgate.core.spi.HeldLease;
import dev.mcpgate.store.tck.fault.FaultProxy;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisURI;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.models.partitions.Partitions;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.internal.HostAndPort;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.MappingSocketAddressResolver;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/**
 * Adversarial review of the Redis renewal pipeline (review2). One master of the shared cluster sits
 * behind a {@link FaultProxy}; the proxy black-holes that master for every connection, open or new
 * (a hung master, a network partition of one node). The store's docs promise that "on a cluster,
 * one slow node leaves only its own keys undecided"; this checks it for every renewal while the
 * node stays silent, not only the first one (which still has the old connection's node links).
 */
class RenewalReview2Test {
  private static final String PREFIX = "mcpgate-review2:";
  private static final Duration LONG = Duration.ofMinutes(10);
  private static final Duration SLACK = Duration.ofSeconds(2);

  private final String tenant = "review2-" + UUID.randomUUID();

  /** The options {@code clusterBuilder} gives the store's own client (RedisIdempotencyStore). */
  private static ClusterClientOptions storesOwnClientOptions() {
    return ClusterClientOptions.builder()
        .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
        .timeoutOptions(TimeoutOptions.enabled(Duration.ofSeconds(5)))
        .topologyRefreshOptions(
            ClusterTopologyRefreshOptions.builder()
                .enableAllAdaptiveRefreshTriggers()
                .enablePeriodicRefresh(Duration.ofSeconds(30))
                .build())
        .build();
  }

  @Test
  void aSilentMasterLeavesOnlyItsOwnKeysUndecidedOnEveryRenewalOnTheStoresOwnClientOptions()
      throws Exception {
    silentMaster(storesOwnClientOptions(), false);
  }

  @Test
  void theFirstSeedSilentLeavesOnlyItsOwnKeysUndecidedOnEveryRenewal() throws Exception {
    silentMaster(storesOwnClientOptions(), true);
  }

  @Test
  void aSilentMasterLeavesOnlyItsOwnKeysUndecidedOnEveryRenewalOnADefaultClient() throws Exception {
    silentMaster(
        ClusterClientOptions.builder()
            .topologyRefreshOptions(
                ClusterTopologyRefreshOptions.builder().enableAllAdaptiveRefreshTriggers().build())
            .build(),
        false);
  }

  private void silentMaster(ClusterClientOptions options, boolean firstSeed) throws Exception {
    List<RedisURI> seeds = TestRedisCluster.seeds();
    TestRedisCluster.awaitSettledTopology();
    TestRedisCluster.client().refreshPartitions();
    Partitions partitions = TestRedisCluster.client().getPartitions();
    List<RedisClusterNode> masters =
        partitions.stream().filter(n -> n.is(RedisClusterNode.NodeFlag.UPSTREAM)).toList();
    // a master that is not the first seed, so that the client can still read the topology
    RedisClusterNode slow =
        masters.stream()
            .filter(n -> (n.getUri().getPort() == seeds.get(0).getPort()) == firstSeed)
            .findFirst()
            .orElseThrow();
    HostAndPort slowAt = HostAndPort.of(slow.getUri().getHost(), slow.getUri().getPort());
    try (FaultProxy proxy = FaultProxy.to(slowAt.getHostText(), slowAt.getPort())) {
      ClientResources resources =
          ClientResources.builder()
              .socketAddressResolver(
                  MappingSocketAddressResolver.create(
                      (Function<HostAndPort, HostAndPort>)
                          hp -> hp.equals(slowAt) ? HostAndPort.of("127.0.0.1", proxy.port()) : hp))
              .build();
      RedisClusterClient client = RedisClusterClient.create(resources, seeds);
      client.setOptions(options);
      try (RedisIdempotencyStore store =
          RedisIdempotencyStore.builder(client).keyPrefix(PREFIX).build()) {
        List<HeldLease> leases = new ArrayList<>();
        for (int i = 0; i < 30; i++) {
          ClaimId id = new ClaimId(tenant, "refund_order", "k" + i);
          LeaseToken token = LeaseToken.random();
          assertThat(store.claim(new ClaimRequest(id, "v1:a", token, Duration.ofSeconds(30), LONG)))
              .isInstanceOf(ClaimAttempt.Acquired.class);
          leases.add(new HeldLease(id, token));
        }
        ClaimKeys keys = ClaimKeys.hashTagged(PREFIX);
        Set<LeaseToken> onSlow = new HashSet<>();
        Set<LeaseToken> others = new HashSet<>();
        for (HeldLease l : leases) {
          RedisClusterNode master = partitions.getMasterBySlot(SlotHash.getSlot(keys.of(l.id())));
          (master.getNodeId().equals(slow.getNodeId()) ? onSlow : others).add(l.token());
        }
        assertThat(onSlow).isNotEmpty();
        assertThat(others).isNotEmpty();
        assertThat(store.extendLeases(leases, LONG, Duration.ofSeconds(5)).extended())
            .hasSize(leases.size());

        proxy.blackholeAll(); // that master stops answering, on old and new connections alike
        Duration within = Duration.ofMillis(1250); // the default policy's try deadline
        List<String> seen = new ArrayList<>();
        for (int call = 0; call < 8; call++) {
          long sent = System.nanoTime();
          String what;
          try {
            ExtendedLeases answer = store.extendLeases(leases, LONG, within);
            what =
                "extended "
                    + answer.extended().size()
                    + " of the other masters' "
                    + others.size()
                    + (answer.extended().containsAll(others) ? " (all)" : "")
                    + ", undecided "
                    + answer.undecided().size();
            assertThat(answer.extended())
                .as("never a silent node's key")
                .doesNotContainAnyElementsOf(onSlow);
            assertThat(answer.undecided()).containsAll(onSlow);
          } catch (StoreUnavailableException e) {
            what = "threw: " + e.getMessage();
          }
          seen.add(
              "call "
                  + call
                  + " ("
                  + Duration.ofNanos(System.nanoTime() - sent).toMillis()
                  + " ms): "
                  + what);
          assertThat(Duration.ofNanos(System.nanoTime() - sent)).isLessThan(within.plus(SLACK));
        }
        System.err.println("[review2] " + String.join("\n[review2] ", seen));
        for (String s : seen) {
          assertThat(s)
              .as(
                  "every renewal while one master is silent extends every other master's keys: %s",
                  seen)
              .contains("(all)");
        }
      } finally {
        client.shutdown();
        resources.shutdown();
      }
    }
  }

  /**
   * A TCP proxy whose target can be switched for new connections, the open ones staying where they
   * are: a DNS name (a managed Redis's primary endpoint) moved to the new master after a failover.
   */
  private static final class SwitchingProxy implements AutoCloseable {
    final java.net.ServerSocket listener =
        new java.net.ServerSocket(0, 50, java.net.InetAddress.getLoopbackAddress());
    final List<java.net.Socket> sockets = new java.util.concurrent.CopyOnWriteArrayList<>();
    volatile int target;

    SwitchingProxy(int target) throws java.io.IOException {
      this.target = target;
      daemon(
          () -> {
            try {
              while (true) {
                java.net.Socket in = listener.accept();
                java.net.Socket out = new java.net.Socket("127.0.0.1", this.target);
                sockets.add(in);
                sockets.add(out);
                daemon(() -> pump(in, out));
                daemon(() -> pump(out, in));
              }
            } catch (java.io.IOException closed) {
              // the test is over
            }
          });
    }

    private static void daemon(Runnable r) {
      Thread t = new Thread(r);
      t.setDaemon(true);
      t.start();
    }

    private static void pump(java.net.Socket from, java.net.Socket to) {
      try {
        from.getInputStream().transferTo(to.getOutputStream());
      } catch (java.io.IOException closed) {
        // one side went away
      }
      try {
        from.close();
        to.close();
      } catch (java.io.IOException ignored) {
        // closed already
      }
    }

    int port() {
      return listener.getLocalPort();
    }

    @Override
    public void close() throws java.io.IOException {
      listener.close();
      for (java.net.Socket s : sockets) {
        s.close();
      }
    }
  }

  /** A private redis-server whose files (a replica's RDB) go to {@code dir}, not the cwd. */
  private static TestRedis.PrivateRedis startIn(java.nio.file.Path dir) throws Exception {
    int port = TestRedis.freePort();
    Process p =
        new ProcessBuilder(
                TestRedis.redisServerBinary(),
                "--port",
                Integer.toString(port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
                "--dir",
                dir.toString())
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.DISCARD)
            .start();
    long until = System.nanoTime() + 10_000_000_000L;
    while (true) {
      try (java.net.Socket s = new java.net.Socket("127.0.0.1", port)) {
        return new TestRedis.PrivateRedis(p, port);
      } catch (java.io.IOException notYet) {
        if (System.nanoTime() > until) {
          p.destroyForcibly();
          throw notYet;
        }
        Thread.sleep(50);
      }
    }
  }

  /**
   * A failover of one Redis with a replica (Sentinel, a managed Redis): the old master is demoted
   * to a replica and keeps its client connections, answering every write {@code READONLY}; the
   * address now leads to the new master. The renewal connection answered {@code READONLY} must not
   * be kept: the next try must reach the new master, which holds the leases.
   */
  @Test
  void aRenewalConnectionOnADemotedMasterIsNotKeptForever() throws Exception {
    java.nio.file.Path dir = java.nio.file.Files.createTempDirectory("review2-redis");
    try (TestRedis.PrivateRedis old = startIn(dir);
        TestRedis.PrivateRedis next = startIn(dir);
        SwitchingProxy proxy = new SwitchingProxy(old.port())) {
      io.lettuce.core.RedisClient admin = io.lettuce.core.RedisClient.create();
      try (var toOld = admin.connect(RedisURI.create("redis://127.0.0.1:" + old.port()));
          var toNext = admin.connect(RedisURI.create("redis://127.0.0.1:" + next.port()))) {
        toNext.sync().replicaof("127.0.0.1", old.port());
        long until = System.nanoTime() + 10_000_000_000L;
        while (!toNext.sync().info("replication").contains("master_link_status:up")) {
          assertThat(System.nanoTime()).isLessThan(until);
          Thread.sleep(50);
        }
        try (RedisIdempotencyStore store =
            RedisIdempotencyStore.builder(RedisURI.create("redis://127.0.0.1:" + proxy.port()))
                .keyPrefix(PREFIX)
                .build()) {
          List<HeldLease> leases = new ArrayList<>();
          for (int i = 0; i < 5; i++) {
            ClaimId id = new ClaimId(tenant, "refund_order", "demoted-" + i);
            LeaseToken token = LeaseToken.random();
            assertThat(
                    store.claim(new ClaimRequest(id, "v1:a", token, Duration.ofSeconds(30), LONG)))
                .isInstanceOf(ClaimAttempt.Acquired.class);
            leases.add(new HeldLease(id, token));
          }
          Set<LeaseToken> all = new HashSet<>();
          leases.forEach(l -> all.add(l.token()));
          assertThat(store.extendLeases(leases, LONG, Duration.ofSeconds(5)).extended())
              .isEqualTo(all);
          assertThat(toOld.sync().waitForReplication(1, 5_000)).isEqualTo(1L);

          // the failover: the replica becomes master, the old master its replica, the address moves
          toNext.sync().replicaofNoOne();
          toOld.sync().replicaof("127.0.0.1", next.port());
          proxy.target = next.port();

          List<String> seen = new ArrayList<>();
          boolean renewed = false;
          for (int call = 0; call < 4 && !renewed; call++) {
            try {
              ExtendedLeases a = store.extendLeases(leases, LONG, Duration.ofMillis(1250));
              assertThat(a.extended().size() + a.undecided().size())
                  .as("no lease reported lost")
                  .isEqualTo(leases.size());
              seen.add("extended " + a.extended().size() + ", undecided " + a.undecided().size());
              renewed = a.extended().equals(all);
            } catch (StoreUnavailableException e) {
              seen.add("threw: " + e.getMessage());
            }
          }
          System.err.println("[review2] demoted: " + seen);
          assertThat(renewed)
              .as("the new master holds every lease; a renewal reaches it within 4 tries: %s", seen)
              .isTrue();
        }
      } finally {
        admin.shutdown();
      }
    }
  }
}
