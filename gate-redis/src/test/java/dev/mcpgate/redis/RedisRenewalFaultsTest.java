package dev.mcpgate.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.mcpgate.core.ClaimId;
import dev.mcpgate.core.LeaseToken;
import dev.mcpgate.core.StoreUnavailableException;
import dev.mcpgate.core.spi.ClaimAttempt;
import dev.mcpgate.core.spi.ClaimRequest;
import dev.mcpgate.core.spi.ExtendedLeases;
import dev.mcpgate.core.spi.HeldLease;
import dev.mcpgate.store.tck.fault.FaultProxy;
import dev.mcpgate.store.tck.fault.Link;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.models.partitions.Partitions;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.internal.HostAndPort;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.MappingSocketAddressResolver;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * The renewal path's deadline on real servers ({@code extendLeases(leases, lease, within)}): a
 * renewal that cannot reach Redis answers within about {@code within}; a connection that timed out
 * is not used again, so the next renewal reaches Redis as soon as Redis can answer; a renewal is
 * not held up by an earlier one that hangs; and a cluster node that does not answer leaves its keys
 * undecided while the other nodes' keys are told. The faults are {@code gate-store-tck}'s {@link
 * FaultProxy} (the connections open through it black-holed, or every new one black-holed from the
 * start) and {@code CLIENT PAUSE} on a private server, so no shared server is disturbed.
 */
class RedisRenewalFaultsTest {
  private static final String PREFIX = "mcpgate-test:";
  private static final Duration LONG = Duration.ofMinutes(10);

  /**
   * What a deadline may overrun by on a loaded 2-core machine: a bound that the call answered by,
   * not a timing.
   */
  private static final Duration SLACK = Duration.ofSeconds(2);

  private final String tenant = "renewal-faults-" + UUID.randomUUID();

  private List<HeldLease> claimed(RedisIdempotencyStore store, String prefix, int n) {
    List<HeldLease> leases = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      ClaimId id = new ClaimId(tenant, "refund_order", prefix + i);
      LeaseToken token = LeaseToken.random();
      assertThat(store.claim(new ClaimRequest(id, "v1:a", token, Duration.ofSeconds(30), LONG)))
          .isInstanceOf(ClaimAttempt.Acquired.class);
      leases.add(new HeldLease(id, token));
    }
    return leases;
  }

  private static Set<LeaseToken> tokens(List<HeldLease> leases) {
    Set<LeaseToken> tokens = new HashSet<>();
    leases.forEach(l -> tokens.add(l.token()));
    return tokens;
  }

  private static Duration since(long startNanos) {
    return Duration.ofNanos(System.nanoTime() - startNanos);
  }

  /** A store on its own client, through {@code proxy}, whose commands time out only after 30 s. */
  private static RedisIdempotencyStore storeThrough(FaultProxy proxy) {
    return RedisIdempotencyStore.builder(
            RedisURI.create(proxy.relayed(URI.create(TestRedis.url())).toString()))
        .keyPrefix(PREFIX)
        .commandTimeout(Duration.ofSeconds(30))
        .build();
  }

  private static FaultProxy proxyToTestRedis() {
    return FaultProxy.to(URI.create(TestRedis.url()));
  }

  /**
   * Black-holes every connection open through {@code proxy} now: it stays open, what either side
   * sends is dropped (a network path gone dead without a reset); connections made later pass.
   */
  private static void freeze(FaultProxy proxy) {
    proxy.links().forEach(Link::blackhole);
  }

  @Test
  void aRenewalThatCannotReachRedisAnswersWithinItsDeadlineAndTheNextOneUsesAFreshConnection()
      throws Exception {
    try (FaultProxy proxy = proxyToTestRedis();
        RedisIdempotencyStore store = storeThrough(proxy)) {
      List<HeldLease> leases = claimed(store, "frozen-", 20);
      assertThat(store.extendLeases(leases, LONG, Duration.ofSeconds(5)).extended())
          .isEqualTo(tokens(leases));
      int before = proxy.links().size();

      freeze(proxy); // the renewal connection (and the main one) go dead, without a reset
      Duration within = Duration.ofMillis(500);
      long sent = System.nanoTime();
      assertThatThrownBy(() -> store.extendLeases(leases, LONG, within))
          .isInstanceOf(StoreUnavailableException.class)
          .hasMessageContaining("within 500 ms");
      assertThat(since(sent)).as("answered by its deadline").isLessThan(within.plus(SLACK));

      // Redis itself answers: the next renewal must not wait behind the dead connection's pipeline
      sent = System.nanoTime();
      ExtendedLeases next = store.extendLeases(leases, LONG, Duration.ofSeconds(5));
      assertThat(next.extended()).isEqualTo(tokens(leases));
      assertThat(next.undecided()).isEmpty();
      assertThat(since(sent)).isLessThan(Duration.ofSeconds(5));
      assertThat(proxy.links().size()).as("a fresh renewal connection").isGreaterThan(before);
    }
  }

  @Test
  void aRenewalGivesUpOpeningAConnectionToAServerThatNeverAnswersAtItsDeadline() throws Exception {
    try (FaultProxy proxy = proxyToTestRedis()) {
      proxy.blackholeNew(true); // every connection is accepted, and never a byte in reply
      try (RedisIdempotencyStore store = storeThrough(proxy)) {
        List<HeldLease> leases =
            List.of(
                new HeldLease(new ClaimId(tenant, "refund_order", "silent"), LeaseToken.random()));
        for (int call = 0; call < 3; call++) { // each retry as bounded as the first
          Duration within = Duration.ofMillis(500);
          long sent = System.nanoTime();
          assertThatThrownBy(() -> store.extendLeases(leases, LONG, within))
              .isInstanceOf(StoreUnavailableException.class)
              .hasMessageContaining("within 500 ms");
          assertThat(since(sent)).as("answered by its deadline").isLessThan(within.plus(SLACK));
        }
      }
    }
  }

  @Test
  void aRenewalIsNotHeldUpByAnEarlierOneThatHangs() throws Exception {
    try (FaultProxy proxy = proxyToTestRedis();
        RedisIdempotencyStore store = storeThrough(proxy)) {
      List<HeldLease> leases = claimed(store, "concurrent-", 5);
      assertThat(store.extendLeases(leases, LONG, Duration.ofSeconds(5)).extended()).hasSize(5);
      freeze(proxy);

      long first = System.nanoTime();
      CompletableFuture<Object> hanging =
          CompletableFuture.supplyAsync(
              () -> {
                try {
                  return store.extendLeases(leases, LONG, Duration.ofSeconds(8));
                } catch (StoreUnavailableException e) {
                  return e;
                }
              });
      Thread.sleep(200); // the first call waits on the dead connection

      Duration within = Duration.ofMillis(500);
      long sent = System.nanoTime();
      assertThatThrownBy(() -> store.extendLeases(leases, LONG, within))
          .isInstanceOf(StoreUnavailableException.class);
      assertThat(since(sent))
          .as("a second call answers by its own deadline, not the first one's")
          .isLessThan(within.plus(SLACK));
      ExtendedLeases third = store.extendLeases(leases, LONG, Duration.ofSeconds(3));
      assertThat(third.extended()).as("on a fresh connection").isEqualTo(tokens(leases));
      assertThat(since(first)).isLessThan(Duration.ofSeconds(8));

      // the first call ends at its deadline at the latest (sooner: the second closed the dead
      // connection it waited on), and is told nothing it could not know
      assertThat(hanging.get(8 + SLACK.toSeconds(), TimeUnit.SECONDS))
          .isInstanceOf(StoreUnavailableException.class);
    }
  }

  @Test
  void aPausedServerIsAnsweredWithinTheDeadlineAndRenewedAsSoonAsItAnswersAgain() throws Exception {
    Assumptions.assumeTrue(
        TestRedis.redisServerBinary() != null || requireAll(),
        "pausing a server of the test's own needs redis-server on the PATH");
    try (TestRedis.PrivateRedis server = TestRedis.PrivateRedis.start(TestRedis.freePort());
        RedisIdempotencyStore store =
            RedisIdempotencyStore.builder(RedisURI.create("redis://127.0.0.1:" + server.port()))
                .keyPrefix(PREFIX)
                .build()) {
      List<HeldLease> leases = claimed(store, "paused-", 10);
      assertThat(store.extendLeases(leases, LONG, Duration.ofSeconds(5)).extended()).hasSize(10);
      RedisClient admin = RedisClient.create(RedisURI.create("redis://127.0.0.1:" + server.port()));
      try (StatefulRedisConnection<String, String> c = admin.connect()) {
        c.sync().clientPause(3_000); // every client's commands wait 3 s (CLIENT PAUSE 3000 ALL)

        Duration within = Duration.ofMillis(500);
        long sent = System.nanoTime();
        assertThatThrownBy(() -> store.extendLeases(leases, LONG, within))
            .isInstanceOf(StoreUnavailableException.class);
        assertThat(since(sent)).as("answered by its deadline").isLessThan(within.plus(SLACK));

        c.sync().ping(); // answered once the pause is over
        ExtendedLeases after = store.extendLeases(leases, LONG, Duration.ofSeconds(5));
        assertThat(after.extended()).isEqualTo(tokens(leases));
      } finally {
        admin.shutdown();
      }
    }
  }

  @Test
  void aClusterNodeThatDoesNotAnswerLeavesItsKeysUndecidedAndTheOthersAreTold() throws Exception {
    List<RedisURI> seeds = TestRedisCluster.seeds();
    TestRedisCluster.awaitSettledTopology(); // the failover test may have moved a master
    TestRedisCluster.client().refreshPartitions();
    Partitions partitions = TestRedisCluster.client().getPartitions();
    RedisClusterNode slow =
        partitions.stream()
            .filter(n -> n.is(RedisClusterNode.NodeFlag.UPSTREAM))
            .findFirst()
            .orElseThrow();
    HostAndPort slowAt = HostAndPort.of(slow.getUri().getHost(), slow.getUri().getPort());
    try (FaultProxy proxy = FaultProxy.to(slowAt.getHostText(), slowAt.getPort())) {
      // every connection to that master goes through the proxy, by the client's address resolver
      ClientResources resources =
          ClientResources.builder()
              .socketAddressResolver(
                  MappingSocketAddressResolver.create(
                      (Function<HostAndPort, HostAndPort>)
                          hp -> hp.equals(slowAt) ? HostAndPort.of("127.0.0.1", proxy.port()) : hp))
              .build();
      RedisClusterClient client = RedisClusterClient.create(resources, seeds);
      try (RedisIdempotencyStore store =
          RedisIdempotencyStore.builder(client).keyPrefix(PREFIX).build()) {
        List<HeldLease> leases = claimed(store, "slow-node-", 40);
        ClaimKeys keys = ClaimKeys.hashTagged(PREFIX);
        Set<LeaseToken> onSlow = new HashSet<>();
        for (HeldLease l : leases) {
          RedisClusterNode master = partitions.getMasterBySlot(SlotHash.getSlot(keys.of(l.id())));
          if (master.getNodeId().equals(slow.getNodeId())) {
            onSlow.add(l.token());
          }
        }
        assertThat(onSlow).isNotEmpty().hasSizeLessThan(leases.size());
        assertThat(store.extendLeases(leases, LONG, Duration.ofSeconds(5)).extended())
            .isEqualTo(tokens(leases));

        freeze(proxy); // that master stops answering this client; the others answer
        Duration within = Duration.ofSeconds(1);
        long sent = System.nanoTime();
        ExtendedLeases partial = store.extendLeases(leases, LONG, within);
        assertThat(since(sent)).as("answered by its deadline").isLessThan(within.plus(SLACK));
        assertThat(partial.undecided()).as("the silent node's keys").isEqualTo(onSlow);
        Set<LeaseToken> others = tokens(leases);
        others.removeAll(onSlow);
        assertThat(partial.extended()).as("every other node's keys").isEqualTo(others);

        ExtendedLeases next = store.extendLeases(leases, LONG, Duration.ofSeconds(5));
        assertThat(next.extended())
            .as("a fresh connection reaches the node again")
            .isEqualTo(tokens(leases));
      } finally {
        client.shutdown();
        resources.shutdown();
      }
    }
  }

  private static boolean requireAll() {
    return "true".equalsIgnoreCase(System.getenv("MCPGATE_TEST_REQUIRE_ALL"));
  }
}
