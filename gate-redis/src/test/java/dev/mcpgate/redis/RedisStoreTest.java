package dev.mcpgate.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.mcpgate.core.ClaimId;
import dev.mcpgate.core.FailureReason;
import dev.mcpgate.core.GateOutcomeException;
import dev.mcpgate.core.GateResult;
import dev.mcpgate.core.IdempotencyGate;
import dev.mcpgate.core.LeaseToken;
import dev.mcpgate.core.ResultMapper;
import dev.mcpgate.core.StoreUnavailableException;
import dev.mcpgate.core.ToolCall;
import dev.mcpgate.core.spi.ClaimAttempt;
import dev.mcpgate.core.spi.ClaimRequest;
import dev.mcpgate.core.spi.HeldLease;
import dev.mcpgate.core.spi.IdempotencyStore;
import dev.mcpgate.store.tck.GateResults;
import dev.mcpgate.store.tck.IdempotencyStoreContract;
import dev.mcpgate.store.tck.chaos.PromiseUnderFaults;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.event.command.CommandFailedEvent;
import io.lettuce.core.event.command.CommandListener;
import io.lettuce.core.event.command.CommandStartedEvent;
import io.lettuce.core.event.command.CommandSucceededEvent;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * The store contract on a real Redis server, plus what only the Redis store promises: round trips,
 * keys that never collide, and failing closed while the server is down.
 */
class RedisStoreTest extends IdempotencyStoreContract {
  private RedisIdempotencyStore redisStore;

  @Override
  protected IdempotencyStore createStore() {
    redisStore =
        RedisIdempotencyStore.builder(TestRedis.client()).keyPrefix("mcpgate-test:").build();
    return redisStore;
  }

  @Override
  protected void closeStore() {
    if (redisStore != null) {
      redisStore.close();
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

  /** Counts the commands a client sends. */
  private static final class Counter implements CommandListener {
    final List<String> commands = new CopyOnWriteArrayList<>();

    @Override
    public void commandStarted(CommandStartedEvent event) {
      commands.add(event.getCommand().getType().toString());
    }

    @Override
    public void commandSucceeded(CommandSucceededEvent event) {}

    @Override
    public void commandFailed(CommandFailedEvent event) {}
  }

  @Test
  void freshCallCostsTwoRoundTripsAndReplayOne() {
    RedisClient counted = RedisClient.create(RedisURI.create(TestRedis.url()));
    Counter counter = new Counter();
    counted.addListener(counter);
    try (RedisIdempotencyStore s =
        RedisIdempotencyStore.builder(counted).keyPrefix("mcpgate-test:").build()) {
      IdempotencyGate gate = IdempotencyGate.builder(s).build();
      gate.execute(call("warm-up", Map.of()), ResultMapper.utf8(), ctx -> "x"); // scripts cached
      ToolCall call = call("rt", Map.of("order_id", "ord_9f2"));

      counter.commands.clear();
      gate.execute(call, ResultMapper.utf8(), ctx -> "refund-1");
      List<String> fresh = new ArrayList<>(counter.commands);
      counter.commands.clear();
      GateResult<String> replay = gate.execute(call, ResultMapper.utf8(), ctx -> "refund-2");
      List<String> replayed = new ArrayList<>(counter.commands);

      assertThat(fresh).containsExactly("EVALSHA", "EVALSHA");
      assertThat(replayed).containsExactly("EVALSHA");
      assertThat(replay).isInstanceOf(GateResult.Replayed.class);
    } finally {
      counted.shutdown();
    }
  }

  @Test
  void identitiesThatLookAlikeNeverShareAKey() {
    ClaimKeys keys = new ClaimKeys("p:");
    List<ClaimId> ids =
        List.of(
            new ClaimId("a|1:b", "c", "k"), new ClaimId("a", "1:b|c", "k"),
            new ClaimId("a", "b", "c|1:k"), new ClaimId("a", "b|1:c", "k"),
            new ClaimId("t", "tool", "X?"), new ClaimId("t", "tool", "X\\ud800"),
            new ClaimId("t", "tool", "X\\\\ud800"), new ClaimId("t", "tool", "X\ud83d\ude00"),
            new ClaimId("t", "tool", "X\ud83d\ude01"), new ClaimId("t", "tool", "X\\"),
            new ClaimId("t", "tool", "x"), new ClaimId("T", "tool", "x"));
    Set<String> distinct = new HashSet<>();
    for (ClaimId id : ids) {
      distinct.add(new String(keys.of(id), java.nio.charset.StandardCharsets.ISO_8859_1));
    }
    assertThat(distinct).hasSize(ids.size());
    // ClaimId refuses lone surrogates; the key encoding would keep them apart all the same
    assertThat(ClaimKeys.escape("X\ud800"))
        .isNotEqualTo(ClaimKeys.escape("X?"))
        .isNotEqualTo(ClaimKeys.escape("X\udbff"))
        .isNotEqualTo(ClaimKeys.escape("X\\ud800"));
  }

  @Test
  void lookAlikeIdentitiesKeepTheirOwnResults() {
    IdempotencyGate gate = IdempotencyGate.builder(store).build();
    List<String> lookAlikes = List.of("X\ud83d\ude00", "X\ud83d\ude01", "X?", "X\\ud83d", "X\\");
    for (String key : lookAlikes) {
      gate.execute(
          ToolCall.of(tenant, "send_mail", key, Map.of()),
          ResultMapper.utf8(),
          ctx -> "sent for " + key.length() + ":" + (int) key.charAt(key.length() - 1));
    }
    for (String key : lookAlikes) {
      assertThat(
              gate.execute(
                  ToolCall.of(tenant, "send_mail", key, Map.of()),
                  ResultMapper.utf8(),
                  ctx -> "again"))
          .isInstanceOfSatisfying(
              GateResult.Replayed.class,
              r ->
                  assertThat(r.value())
                      .isEqualTo(
                          "sent for " + key.length() + ":" + (int) key.charAt(key.length() - 1)));
    }
  }

  @Test
  void aStoreBuildsWhileRedisIsDownAndConnectsOnFirstUseOnceItIsUp() throws Exception {
    Assumptions.assumeTrue(
        TestRedis.redisServerBinary() != null || requireAll(),
        "starting a server needs redis-server on the PATH");
    int port = TestRedis.freePort();
    AtomicInteger runs = new AtomicInteger();
    try (RedisIdempotencyStore s =
        RedisIdempotencyStore.builder(RedisURI.create("redis://127.0.0.1:" + port))
            .commandTimeout(Duration.ofSeconds(2))
            .build()) { // nothing listens there: building must not connect
      IdempotencyGate gate = IdempotencyGate.builder(s).build();
      assertThatThrownBy(s::verify)
          .isInstanceOf(StoreUnavailableException.class)
          .hasMessageContaining("could not connect to Redis");
      assertThatThrownBy(
              () ->
                  GateResults.failed(
                          gate.execute(
                              call("early", Map.of()),
                              ResultMapper.utf8(),
                              ctx -> "ran " + runs.incrementAndGet()),
                          FailureReason.STORE_UNAVAILABLE)
                      .orThrow())
          .isInstanceOf(GateOutcomeException.class)
          .hasMessageContaining("did not run");
      assertThat(runs).hasValue(0);

      TestRedis.PrivateRedis server = TestRedis.PrivateRedis.start(port);
      try {
        s.verify();
        assertThat(
                gate.execute(
                    call("early", Map.of()),
                    ResultMapper.utf8(),
                    ctx -> "ran " + runs.incrementAndGet()))
            .isInstanceOfSatisfying(
                GateResult.Executed.class, e -> assertThat(e.value()).isEqualTo("ran 1"));
      } finally {
        server.kill();
      }
    }
  }

  @Test
  void aServerThatGoesDownFailsClosedAndTheStoreRecoversWhenItIsBack() throws Exception {
    Assumptions.assumeTrue(
        TestRedis.redisServerBinary() != null || requireAll(),
        "restarting a server needs redis-server on the PATH");
    int port = TestRedis.freePort();
    AtomicInteger runs = new AtomicInteger();
    TestRedis.PrivateRedis server = TestRedis.PrivateRedis.start(port);
    try (RedisIdempotencyStore s =
        RedisIdempotencyStore.builder(RedisURI.create("redis://127.0.0.1:" + port))
            .commandTimeout(Duration.ofSeconds(2))
            .build()) {
      IdempotencyGate gate = IdempotencyGate.builder(s).build();
      assertThat(
              gate.execute(
                  call("before", Map.of()),
                  ResultMapper.utf8(),
                  ctx -> "ran " + runs.incrementAndGet()))
          .isInstanceOf(GateResult.Executed.class);

      server.kill();
      long began = System.nanoTime();
      assertThatThrownBy(
              () ->
                  GateResults.failed(
                          gate.execute(
                              call("while-down", Map.of()),
                              ResultMapper.utf8(),
                              ctx -> "ran " + runs.incrementAndGet()),
                          FailureReason.STORE_UNAVAILABLE)
                      .orThrow())
          .isInstanceOf(GateOutcomeException.class)
          .hasMessageContaining("did not run");
      assertThat(runs).as("the action did not run while Redis was down").hasValue(1);
      assertThat(Duration.ofNanos(System.nanoTime() - began)).isLessThan(Duration.ofSeconds(10));

      server = TestRedis.PrivateRedis.start(port);
      GateResult<String> after = null;
      for (int i = 0; i < 100 && after == null; i++) {
        GateResult<String> r =
            gate.execute(
                call("while-down", Map.of()),
                ResultMapper.utf8(),
                ctx -> "ran " + runs.incrementAndGet());
        if (r instanceof GateResult.Failed<String> f
            && f.reason() == FailureReason.STORE_UNAVAILABLE) {
          Thread.sleep(100); // reconnecting
        } else {
          after = r;
        }
      }
      assertThat(after)
          .isInstanceOfSatisfying(
              GateResult.Executed.class, e -> assertThat(e.value()).isEqualTo("ran 2"));
    } finally {
      server.close();
    }
  }

  /** Records, in order, when each command was sent ("S") and answered ("D"). */
  private static final class Sequence implements CommandListener {
    final List<String> events = new CopyOnWriteArrayList<>();

    @Override
    public void commandStarted(CommandStartedEvent event) {
      events.add("S " + event.getCommand().getType());
    }

    @Override
    public void commandSucceeded(CommandSucceededEvent event) {
      events.add("D " + event.getCommand().getType());
    }

    @Override
    public void commandFailed(CommandFailedEvent event) {
      events.add("F " + event.getCommand().getType());
    }
  }

  private List<HeldLease> heldLeases(RedisIdempotencyStore s, String prefix, int n) {
    List<HeldLease> leases = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      ClaimId id = id(prefix + i);
      LeaseToken token = LeaseToken.random();
      assertThat(s.claim(new ClaimRequest(id, "v1:a", token, shortLease(), LONG)))
          .isInstanceOf(ClaimAttempt.Acquired.class);
      leases.add(new HeldLease(id, token));
    }
    return leases;
  }

  @Test
  void extendLeasesIsOnePipelineOfPerKeyScriptsOnTheRenewalsOwnConnection() throws Exception {
    RedisClient counted = RedisClient.create(RedisURI.create(TestRedis.url()));
    Sequence sequence = new Sequence();
    counted.addListener(sequence);
    try (RedisIdempotencyStore s =
            RedisIdempotencyStore.builder(counted).keyPrefix("mcpgate-test:").build();
        StatefulRedisConnection<String, String> admin = TestRedis.client().connect()) {
      List<HeldLease> leases = heldLeases(s, "pipelined-", 40);
      s.extendLeases(
          leases.subList(0, 1), LONG, RENEWAL_DEADLINE); // opens the connection, caches the script
      // the listener hears of earlier answers a little after they complete: wait for each
      long heard = System.nanoTime() + 5_000_000_000L;
      while (System.nanoTime() < heard
          && sequence.events.stream().filter(e -> e.startsWith("S ")).count()
              != sequence.events.stream().filter(e -> !e.startsWith("S ")).count()) {
        Thread.sleep(5);
      }
      sequence.events.clear();

      Set<LeaseToken> extended = s.extendLeases(leases, LONG, RENEWAL_DEADLINE).extended();
      // Lettuce reports an answer to listeners just after completing its future: wait for all
      long deadline = System.nanoTime() + 5_000_000_000L;
      while (sequence.events.size() < 80 && System.nanoTime() < deadline) {
        Thread.onSpinWait();
      }
      List<String> events = new ArrayList<>(sequence.events);

      assertThat(extended).hasSize(40);
      List<String> sent = new ArrayList<>(Collections.nCopies(40, "S EVALSHA"));
      List<String> answered = new ArrayList<>(Collections.nCopies(40, "D EVALSHA"));
      assertThat(events.subList(0, 40))
          .as("every script sent before any answer: one" + " round trip")
          .isEqualTo(sent);
      assertThat(events.subList(40, events.size())).isEqualTo(answered);
      assertThat(admin.sync().clientList())
          .as("the renewals' own connection")
          .contains("name=" + RenewalPipeline.CLIENT_NAME);
    } finally {
      counted.shutdown();
    }
  }

  @Test
  void extendLeasesLoadsTheScriptOnceWhereTheServerForgotIt() throws Exception {
    List<HeldLease> leases = heldLeases(redisStore, "flushed-", 5);
    redisStore.extendLeases(leases, LONG, RENEWAL_DEADLINE);
    try (StatefulRedisConnection<String, String> admin = TestRedis.client().connect()) {
      admin.sync().scriptFlush();
    }

    assertThat(redisStore.extendLeases(leases, LONG, RENEWAL_DEADLINE).extended()).hasSize(5);
    elapse(shortLease());
    for (HeldLease held : leases) {
      assertThat(claim(held.id(), "v1:a", LeaseToken.random(), LONG))
          .isInstanceOf(ClaimAttempt.Existing.class);
    }
  }

  @Test
  void anUnknownRowsKeyExpiresAFenceAndTheGraceAfterItWasMarked() {
    ClaimId id = id("fence-ttl");
    LeaseToken token = LeaseToken.random();
    claim(id, "v1:a", token, LONG);
    Duration fence = Duration.ofSeconds(20);

    assertThat(redisStore.markUnknown(id, token, fence)).isTrue();

    try (StatefulRedisConnection<byte[], byte[]> admin =
        TestRedis.client().connect(io.lettuce.core.codec.ByteArrayCodec.INSTANCE)) {
      long pttl = admin.sync().pttl(new ClaimKeys("mcpgate-test:").of(id));
      Duration keyLife = fence.plus(Duration.ofMinutes(1)); // the default expiry grace
      assertThat(pttl).isBetween(keyLife.minusSeconds(5).toMillis(), keyLife.toMillis());
    }
  }

  /**
   * A store's expiry grace is how long Redis keeps a completed claim's key after its retention;
   * zero, Redis removes it as its retention ends; a negative grace is refused, naming it.
   */
  @Test
  void aCompletedClaimsKeyLivesItsRetentionAndTheStoresExpiryGrace() {
    Duration retention = Duration.ofMinutes(30);
    for (Duration grace : List.of(Duration.ofSeconds(90), Duration.ZERO)) {
      try (RedisIdempotencyStore s =
          RedisIdempotencyStore.builder(TestRedis.client())
              .keyPrefix("mcpgate-test:")
              .expiryGrace(grace)
              .build()) {
        ClaimId id = id("grace-" + grace.toSeconds());
        LeaseToken token = LeaseToken.random();
        s.claim(new ClaimRequest(id, "v1:a", token, LONG, retention));
        assertThat(s.complete(id, token, value("r"), retention)).isTrue();

        try (StatefulRedisConnection<byte[], byte[]> admin =
            TestRedis.client().connect(io.lettuce.core.codec.ByteArrayCodec.INSTANCE)) {
          long pttl = admin.sync().pttl(new ClaimKeys("mcpgate-test:").of(id));
          Duration keyLife = retention.plus(grace);
          assertThat(pttl)
              .as("grace " + grace)
              .isBetween(keyLife.minusSeconds(5).toMillis(), keyLife.toMillis());
        }
      }
    }
    assertThatThrownBy(
            () ->
                RedisIdempotencyStore.builder(TestRedis.client())
                    .expiryGrace(Duration.ofMillis(-1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("grace must not be negative, was PT-0.001S");
  }

  @Test
  void verifyWarnsWhenRedisMayEvictClaimsAndIsQuietOnNoeviction() throws Exception {
    try (StatefulRedisConnection<String, String> admin = TestRedis.client().connect()) {
      String old = admin.sync().configGet("maxmemory-policy").get("maxmemory-policy");
      try {
        admin.sync().configSet("maxmemory-policy", "allkeys-lru");
        assertThat(logOf(redisStore::verify))
            .contains("WARN")
            .contains("maxmemory-policy is allkeys-lru")
            .contains("noeviction");
        admin.sync().configSet("maxmemory-policy", "volatile-ttl");
        assertThat(logOf(redisStore::verify))
            .contains("maxmemory-policy is volatile-ttl")
            .contains("carry a TTL");
        admin.sync().configSet("maxmemory-policy", "noeviction");
        assertThat(logOf(redisStore::verify)).doesNotContain("maxmemory-policy");
      } finally {
        admin.sync().configSet("maxmemory-policy", old);
      }
    }
  }

  @Test
  void everyEvictingPolicyIsWarnedOfAndOnlyNoevictionIsNot() {
    for (String policy :
        List.of(
            "allkeys-lru",
            "allkeys-lfu",
            "allkeys-random",
            "volatile-lru",
            "volatile-lfu",
            "volatile-random",
            "volatile-ttl")) {
      assertThat(NodeChecks.evictionWarning(policy))
          .as(policy)
          .contains("maxmemory-policy is " + policy)
          .contains("evict claims");
    }
    assertThat(NodeChecks.evictionWarning("noeviction")).isNull();
  }

  /**
   * @return what slf4j-simple wrote to System.err while {@code action} ran
   */
  private static String logOf(Runnable action) {
    java.io.PrintStream err = System.err;
    java.io.ByteArrayOutputStream captured = new java.io.ByteArrayOutputStream();
    System.setErr(new java.io.PrintStream(captured, true, java.nio.charset.StandardCharsets.UTF_8));
    try {
      action.run();
    } finally {
      System.setErr(err);
    }
    return captured.toString(java.nio.charset.StandardCharsets.UTF_8);
  }

  private static boolean requireAll() {
    return "true".equalsIgnoreCase(System.getenv("MCPGATE_TEST_REQUIRE_ALL"));
  }

  /** The engine's promise on this store under the simulation's faults, in real time. */
  @Test
  void keepsThePromiseUnderFaults() {
    assertThat(PromiseUnderFaults.check(store, System.nanoTime())).isGreaterThan(50);
  }
}
