package dev.mcpgate.store.tck;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.mcpgate.core.ClaimId;
import dev.mcpgate.core.ClaimOutcome;
import dev.mcpgate.core.GatePolicy;
import dev.mcpgate.core.GateResult;
import dev.mcpgate.core.IdempotencyGate;
import dev.mcpgate.core.LeaseToken;
import dev.mcpgate.core.RefusalReason;
import dev.mcpgate.core.ResultMapper;
import dev.mcpgate.core.ResultTooLargeException;
import dev.mcpgate.core.ToolCall;
import dev.mcpgate.core.spi.ClaimAttempt;
import dev.mcpgate.core.spi.ClaimRecord;
import dev.mcpgate.core.spi.ClaimRequest;
import dev.mcpgate.core.spi.ClaimState;
import dev.mcpgate.core.spi.ExtendedLeases;
import dev.mcpgate.core.spi.IdempotencyStore;
import dev.mcpgate.core.spi.StoredResult;
import dev.mcpgate.core.spi.Takeover;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The behaviour every {@link IdempotencyStore} promises, as one JUnit 5 suite that each store runs
 * by subclassing it in its own tests. The stores of MCP Gate run it as it stands; so can a store
 * written elsewhere:
 *
 * <pre>
 * class MyStoreContractTest extends IdempotencyStoreContract {
 *   private final MutableClock clock = new MutableClock(Instant.parse("2030-01-01T00:00:00Z"));
 *
 *   &#64;Override
 *   protected IdempotencyStore createStore() {
 *     return new MyStore(clock);
 *   }
 *
 *   &#64;Override
 *   protected void elapse(Duration d) {
 *     clock.advance(d); // without this override, the suite sleeps
 *   }
 * }
 * </pre>
 *
 * <p>The suite checks the outcome table (fresh claim, replay, in flight, conflict in every state),
 * the one takeover rule, fencing by the lease token, lease extension and release, the unknown
 * outcome, expiry and purge on the store's clock, tenant and tool isolation, results byte for byte
 * up to the size limit, and threads racing on one key and over many keys. Every guard of the
 * store's conditional writes has a test here that fails when the guard is removed: the lease token
 * on complete, release and extend; the state on release and takeover; the argument hash and the
 * lease time on takeover; the expiry on a fresh claim.
 *
 * <p>Each test works under its own random tenant ({@link #tenant}), so a shared database needs no
 * cleaning between tests. {@link #createStore()} is called before each test and {@link
 * #closeStore()} after it; a subclass may add tests of its own, which see the same {@link #store}.
 */
public abstract class IdempotencyStoreContract {

  /** A lease long enough that it never runs out by accident during a test. */
  protected static final Duration LONG = Duration.ofMinutes(10);

  /**
   * The deadline the suite gives one renewal call ({@code extendLeases}): generous, so that a store
   * on a slow test machine settles every lease in it.
   */
  protected static final Duration RENEWAL_DEADLINE = Duration.ofSeconds(10);

  /** The store under test: what {@link #createStore()} returned for the current test. */
  protected IdempotencyStore store;

  /** The current test's tenant, random per test; {@link #id} and {@link #call} use it. */
  protected String tenant;

  /** For subclasses. */
  protected IdempotencyStoreContract() {}

  /**
   * Builds the store under test, on the backend under test; called before each test. The store may
   * be shared by tests or new for each: the tests keep apart by tenant.
   *
   * @return the store the current test runs on
   * @throws Exception if the store cannot be built; the test fails
   */
  protected abstract IdempotencyStore createStore() throws Exception;

  /**
   * Lets {@code d} pass on the store's clock. The default sleeps a little longer than {@code d}
   * (for stores on a real server's clock); a store on an injected clock advances it instead, for
   * example a {@link MutableClock}.
   *
   * @param d how much time passes
   * @throws InterruptedException if the sleep is interrupted
   */
  protected void elapse(Duration d) throws InterruptedException {
    Thread.sleep(d.toMillis() + 30);
  }

  /**
   * The lease that tests let run out with {@link #elapse}. The default, 300 ms, suits a real
   * server; a store whose clock is coarse (or slow to agree across nodes) lengthens it.
   *
   * @return the short lease
   */
  protected Duration shortLease() {
    return Duration.ofMillis(300);
  }

  /**
   * Called after each test, to close what {@link #createStore()} opened. The default does nothing.
   *
   * @throws Exception if closing fails; the test fails
   */
  protected void closeStore() throws Exception {}

  @BeforeEach
  void setUpStore() throws Exception {
    store = createStore();
    tenant = "t-" + UUID.randomUUID();
  }

  @AfterEach
  void tearDownStore() throws Exception {
    closeStore();
  }

  // ------------------------------------------------------------------ helpers

  /**
   * @param key an idempotency key
   * @return the id of {@code key} for the tool {@code refund_order}, under the current tenant
   */
  protected ClaimId id(String key) {
    return new ClaimId(tenant, "refund_order", key);
  }

  /**
   * Claims on the store directly (no gate), with a retention of six {@link #LONG} leases.
   *
   * @param id what to claim
   * @param hash the argument hash, any string such as {@code "v1:a"}
   * @param token the attempt's lease token
   * @param lease how long the lease lasts
   * @return what the store answered
   */
  protected ClaimAttempt claim(ClaimId id, String hash, LeaseToken token, Duration lease) {
    return store.claim(new ClaimRequest(id, hash, token, lease, LONG.multipliedBy(6)));
  }

  /**
   * @param text a result
   * @return {@code text} as a stored value (not a failure), in UTF-8
   */
  protected static StoredResult value(String text) {
    return new StoredResult(
        StoredResult.Kind.VALUE, text.getBytes(java.nio.charset.StandardCharsets.UTF_8));
  }

  /**
   * Claims id with a short lease, lets it expire, and has a second attempt take it over.
   *
   * @return the stale token (index 0) and the current one (index 1)
   */
  private LeaseToken[] takenOver(ClaimId id, Duration currentLease) throws InterruptedException {
    LeaseToken stale = LeaseToken.random();
    claim(id, "v1:a", stale, shortLease());
    elapse(shortLease());
    LeaseToken current = LeaseToken.random();
    assertThat(claim(id, "v1:a", current, currentLease)).isInstanceOf(ClaimAttempt.Acquired.class);
    return new LeaseToken[] {stale, current};
  }

  private IdempotencyGate gate(GatePolicy policy) {
    return IdempotencyGate.builder(store).policy(policy).build();
  }

  /**
   * @param key an idempotency key
   * @param args the call's arguments
   * @return a call of the tool {@code refund_order} under the current tenant
   */
  protected ToolCall call(String key, Map<String, ?> args) {
    return ToolCall.of(tenant, "refund_order", key, args);
  }

  // ------------------------------------------------------------------ outcome table

  @Test
  void freshClaimWritesInProgressRowWithNewToken() {
    LeaseToken token = LeaseToken.random();
    ClaimAttempt attempt = claim(id("k1"), "v1:a", token, LONG);

    assertThat(attempt).isInstanceOf(ClaimAttempt.Acquired.class);
    ClaimRecord row = attempt.record();
    assertThat(row.state()).isEqualTo(ClaimState.IN_PROGRESS);
    assertThat(row.token()).isEqualTo(token);
    assertThat(row.attempt()).isEqualTo(1);
    assertThat(row.argsHash()).isEqualTo("v1:a");
    assertThat(row.leaseExpiresAt()).isAfter(row.createdAt());
    assertThat(store.find(id("k1"))).get().extracting(ClaimRecord::token).isEqualTo(token);
  }

  @Test
  void replayReturnsStoredResultAndRunsNothing() {
    IdempotencyGate gate = gate(GatePolicy.defaults());
    AtomicInteger runs = new AtomicInteger();
    GateResult<String> first =
        gate.execute(
            call("k", Map.of("amount", 5)),
            ResultMapper.utf8(),
            ctx -> "refund-" + runs.incrementAndGet());
    GateResult<String> second =
        gate.execute(
            call("k", Map.of("amount", 5)),
            ResultMapper.utf8(),
            ctx -> "refund-" + runs.incrementAndGet());

    assertThat(runs).hasValue(1);
    assertThat(first).isInstanceOf(GateResult.Executed.class);
    assertThat(((GateResult.Executed<String>) first).completion())
        .isEqualTo(GateResult.Completion.STORED);
    assertThat(second)
        .isInstanceOfSatisfying(
            GateResult.Replayed.class,
            r -> {
              assertThat(r.value()).isEqualTo("refund-1");
              assertThat(r.failure()).isFalse();
              assertThat(r.firstExecutedAt()).isNotNull();
            });
  }

  @Test
  void sameKeyWithDifferentArgumentsIsConflictInEveryState() throws Exception {
    IdempotencyGate gate =
        gate(
            GatePolicy.builder()
                .lease(shortLease())
                .leaseRenewal(Duration.ZERO)
                .inFlightWait(Duration.ZERO)
                .build());
    Map<String, Integer> first = Map.of("amount", 5);
    Map<String, Integer> other = Map.of("amount", 6);
    AtomicInteger runs = new AtomicInteger();
    // in progress, completed, unknown
    gate.claim(call("in-progress", first));
    gate.execute(call("completed", first), ResultMapper.utf8(), ctx -> "done");
    gate.markUnknown((ClaimOutcome.Acquired) gate.claim(call("unknown", first)));
    for (String key : List.of("in-progress", "completed", "unknown")) {
      assertThat(
              gate.execute(
                  call(key, other), ResultMapper.utf8(), ctx -> "again-" + runs.incrementAndGet()))
          .as(key)
          .isInstanceOfSatisfying(
              GateResult.Refused.class,
              r -> assertThat(r.reason()).isEqualTo(RefusalReason.CONFLICT));
    }
    // the leases have run out: still a conflict, never a takeover with other arguments
    elapse(shortLease());
    for (String key : List.of("in-progress", "completed", "unknown")) {
      assertThat(
              gate.execute(
                  call(key, other), ResultMapper.utf8(), ctx -> "again-" + runs.incrementAndGet()))
          .as(key + ", lease expired")
          .isInstanceOfSatisfying(
              GateResult.Refused.class,
              r -> assertThat(r.reason()).isEqualTo(RefusalReason.CONFLICT));
    }
    assertThat(runs).hasValue(0);
    assertThat(store.find(call("in-progress", first).id()).orElseThrow().attempt()).isEqualTo(1);
  }

  @Test
  void inProgressWithLiveLeaseIsInFlight() {
    IdempotencyGate gate =
        gate(GatePolicy.builder().lease(LONG).inFlightWait(Duration.ZERO).build());
    ClaimOutcome first = gate.claim(call("k", Map.of("a", 1)));
    ClaimOutcome second = gate.claim(call("k", Map.of("a", 1)));

    assertThat(first).isInstanceOf(ClaimOutcome.Acquired.class);
    assertThat(second)
        .isInstanceOfSatisfying(
            ClaimOutcome.Refused.class,
            f -> {
              assertThat(f.reason()).isEqualTo(RefusalReason.IN_PROGRESS);
              assertThat(f.retryAfter()).isPositive().isLessThanOrEqualTo(Duration.ofSeconds(5));
            });
  }

  // ------------------------------------------------------------------ the one takeover rule

  /** One row set up for {@link #claimDecisionFollowsTheTakeoverRuleInEveryRowState}. */
  private record RuleCase(
      ClaimId id, ClaimState state, boolean leaseRanOut, boolean rowExpired, boolean sameHash) {}

  /**
   * Whatever language a store decides in (Java, SQL, a DynamoDB condition), its claim decision
   * equals the SPI's one rule, {@link Takeover#allowed}, for every row state, argument hash, lease
   * and expiry; the new attempt number equals {@link Takeover#nextAttempt}; a refused claim leaves
   * the row as it was.
   */
  @Test
  void claimDecisionFollowsTheTakeoverRuleInEveryRowState() throws Exception {
    List<RuleCase> cases = new ArrayList<>();
    for (ClaimState state : ClaimState.values()) {
      for (boolean leaseRanOut : new boolean[] {false, true}) {
        for (boolean rowExpired : new boolean[] {false, true}) {
          for (boolean sameHash : new boolean[] {false, true}) {
            RuleCase c =
                new RuleCase(id("rule-" + cases.size()), state, leaseRanOut, rowExpired, sameHash);
            Duration retention = rowExpired ? shortLease() : LONG.multipliedBy(6);
            LeaseToken token = LeaseToken.random();
            assertThat(
                    store.claim(
                        new ClaimRequest(
                            c.id(), "v1:a", token, leaseRanOut ? shortLease() : LONG, retention)))
                .isInstanceOf(ClaimAttempt.Acquired.class);
            if (state == ClaimState.UNKNOWN) {
              assertThat(store.markUnknown(c.id(), token, retention)).isTrue();
            } else if (state == ClaimState.COMPLETED) {
              assertThat(store.complete(c.id(), token, value("done"), retention)).isTrue();
            }
            cases.add(c);
          }
        }
      }
    }
    elapse(shortLease());

    int acquired = 0;
    for (RuleCase c : cases) {
      ClaimRecord before = store.find(c.id()).orElseThrow();
      Instant now = store.now();
      String hash = c.sameHash() ? "v1:a" : "v1:b";
      boolean allowed = Takeover.allowed(before, hash, now);
      LeaseToken token = LeaseToken.random();
      ClaimAttempt attempt =
          store.claim(new ClaimRequest(c.id(), hash, token, LONG, LONG.multipliedBy(6)));

      assertThat(attempt instanceof ClaimAttempt.Acquired).as("acquired: %s", c).isEqualTo(allowed);
      if (allowed) {
        acquired++;
        assertThat(attempt.record().token()).as("token: %s", c).isEqualTo(token);
        assertThat(attempt.record().attempt())
            .as("attempt: %s", c)
            .isEqualTo(Takeover.nextAttempt(before, now));
      } else {
        assertThat(store.find(c.id())).as("unchanged: %s", c).contains(before);
      }
    }
    assertThat(acquired).as("the cases cover both decisions").isBetween(1, cases.size() - 1);
  }

  @Test
  void expiredLeaseIsTakenOverWithNewTokenAndNextAttempt() throws Exception {
    ClaimId id = id("k");
    LeaseToken second = takenOver(id, LONG)[1];

    ClaimRecord takeover = store.find(id).orElseThrow();
    assertThat(takeover.token()).isEqualTo(second);
    assertThat(takeover.attempt()).isEqualTo(2);
    assertThat(takeover.isTakeover()).isTrue();
  }

  @Test
  void takeoverIsVisibleToTheActionAndListeners() throws Exception {
    List<String> events = new ArrayList<>();
    IdempotencyGate gate =
        IdempotencyGate.builder(store)
            .policy(GatePolicy.builder().lease(shortLease()).build())
            .listener(e -> events.add(e.type() + (e.isTakeover() ? " (takeover)" : "")))
            .build();
    ClaimOutcome.Acquired abandoned = (ClaimOutcome.Acquired) gate.claim(call("k", Map.of()));
    elapse(shortLease());

    GateResult<String> result =
        gate.execute(
            call("k", Map.of()),
            ResultMapper.utf8(),
            ctx ->
                "takeover="
                    + ctx.isTakeover()
                    + " attempt="
                    + ctx.attempt()
                    + " sameDownstreamKey="
                    + ctx.downstreamKey().equals(abandoned.downstreamKey()));

    assertThat(((GateResult.Executed<String>) result).value())
        .isEqualTo("takeover=true attempt=2 sameDownstreamKey=true");
    assertThat(events).containsSubsequence("ACQUIRED", "ACQUIRED (takeover)", "COMPLETED");
  }

  @Test
  void liveLeaseIsNotTakenOverEvenWithSameArguments() {
    ClaimId id = id("k");
    LeaseToken first = LeaseToken.random();
    claim(id, "v1:a", first, LONG);

    ClaimAttempt second = claim(id, "v1:a", LeaseToken.random(), LONG);

    assertThat(second).isInstanceOf(ClaimAttempt.Existing.class);
    assertThat(second.record().token()).isEqualTo(first);
  }

  @Test
  void expiredLeaseWithDifferentArgumentsIsNotTakenOver() throws Exception {
    ClaimId id = id("k");
    LeaseToken first = LeaseToken.random();
    claim(id, "v1:a", first, shortLease());
    elapse(shortLease());

    ClaimAttempt other = claim(id, "v1:b", LeaseToken.random(), LONG);

    assertThat(other).isInstanceOf(ClaimAttempt.Existing.class);
    assertThat(other.record().token()).isEqualTo(first);
    assertThat(other.record().argsHash()).isEqualTo("v1:a");
  }

  @Test
  void completedRowIsNotTakenOverAfterItsLeaseTime() throws Exception {
    ClaimId id = id("k");
    LeaseToken token = LeaseToken.random();
    claim(id, "v1:a", token, shortLease());
    assertThat(store.complete(id, token, value("r"), LONG)).isTrue();
    elapse(shortLease());

    ClaimAttempt again = claim(id, "v1:a", LeaseToken.random(), LONG);

    assertThat(again).isInstanceOf(ClaimAttempt.Existing.class);
    assertThat(again.record().state()).isEqualTo(ClaimState.COMPLETED);
    assertThat(again.record().result()).isEqualTo(value("r"));
  }

  @Test
  void expiredRowIsClaimedFreshEvenWithOtherArguments() throws Exception {
    ClaimId id = id("k");
    LeaseToken token = LeaseToken.random();
    store.claim(new ClaimRequest(id, "v1:a", token, shortLease(), shortLease()));
    assertThat(store.complete(id, token, value("old"), shortLease())).isTrue();
    elapse(shortLease());

    ClaimAttempt fresh = claim(id, "v1:b", LeaseToken.random(), LONG);

    assertThat(fresh).isInstanceOf(ClaimAttempt.Acquired.class);
    assertThat(fresh.record().attempt()).isEqualTo(1);
    assertThat(fresh.record().argsHash()).isEqualTo("v1:b");
    assertThat(fresh.record().result()).isNull();
  }

  @Test
  void unexpiredCompletedRowIsNotClaimedAgain() throws Exception {
    ClaimId id = id("k");
    LeaseToken token = LeaseToken.random();
    claim(id, "v1:a", token, shortLease());
    assertThat(store.complete(id, token, value("r"), LONG)).isTrue();
    elapse(shortLease());

    assertThat(claim(id, "v1:b", LeaseToken.random(), LONG))
        .isInstanceOf(ClaimAttempt.Existing.class);
  }

  // ------------------------------------------------------------------ fencing

  @Test
  void staleTokenCannotComplete() throws Exception {
    ClaimId id = id("k");
    LeaseToken[] tokens = takenOver(id, LONG);
    LeaseToken stale = tokens[0];
    LeaseToken current = tokens[1];

    assertThat(store.complete(id, stale, value("stale"), LONG)).isFalse();

    ClaimRecord row = store.find(id).orElseThrow();
    assertThat(row.state()).isEqualTo(ClaimState.IN_PROGRESS);
    assertThat(row.token()).isEqualTo(current);
    assertThat(store.complete(id, current, value("current"), LONG)).isTrue();
    assertThat(store.find(id).orElseThrow().result()).isEqualTo(value("current"));
  }

  @Test
  void staleTokenCannotRelease() throws Exception {
    ClaimId id = id("k");
    LeaseToken[] tokens = takenOver(id, LONG);

    assertThat(store.release(id, tokens[0])).isFalse();

    assertThat(store.find(id)).get().extracting(ClaimRecord::token).isEqualTo(tokens[1]);
  }

  @Test
  void staleTokenCannotExtendLease() throws Exception {
    ClaimId id = id("k");
    LeaseToken[] tokens = takenOver(id, shortLease());
    Instant currentLease = store.find(id).orElseThrow().leaseExpiresAt();

    assertThat(store.extendLease(id, tokens[0], LONG)).isFalse();

    assertThat(store.find(id).orElseThrow().leaseExpiresAt()).isEqualTo(currentLease);
  }

  @Test
  void staleTokenCannotMarkUnknown() throws Exception {
    ClaimId id = id("k");
    LeaseToken[] tokens = takenOver(id, LONG);

    assertThat(store.markUnknown(id, tokens[0], LONG)).isFalse();

    assertThat(store.find(id).orElseThrow().state()).isEqualTo(ClaimState.IN_PROGRESS);
  }

  @Test
  void completedRowCannotBeReleasedOrCompletedAgain() {
    ClaimId id = id("k");
    LeaseToken token = LeaseToken.random();
    claim(id, "v1:a", token, LONG);
    assertThat(store.complete(id, token, value("first"), LONG)).isTrue();

    assertThat(store.release(id, token)).isFalse();
    assertThat(store.complete(id, token, value("second"), LONG)).isFalse();

    ClaimRecord row = store.find(id).orElseThrow();
    assertThat(row.state()).isEqualTo(ClaimState.COMPLETED);
    assertThat(row.result()).isEqualTo(value("first"));
  }

  @Test
  void completedRowCannotBeExtendedOrMarkedUnknown() {
    ClaimId id = id("k");
    LeaseToken token = LeaseToken.random();
    claim(id, "v1:a", token, LONG);
    assertThat(store.complete(id, token, value("done"), LONG)).isTrue();
    Instant lease = store.find(id).orElseThrow().leaseExpiresAt();

    assertThat(store.extendLease(id, token, LONG.multipliedBy(5))).isFalse();
    assertThat(store.markUnknown(id, token, LONG)).isFalse();

    ClaimRecord row = store.find(id).orElseThrow();
    assertThat(row.state()).isEqualTo(ClaimState.COMPLETED);
    assertThat(row.leaseExpiresAt()).isEqualTo(lease);
  }

  @Test
  void staleAttemptThroughTheGateLearnsItLostAndKeepsNewResult() throws Exception {
    List<String> events = new ArrayList<>();
    IdempotencyGate gate =
        IdempotencyGate.builder(store)
            .policy(GatePolicy.builder().lease(shortLease()).build())
            .listener(e -> events.add(e.type() + (e.isTakeover() ? " (takeover)" : "")))
            .build();
    ClaimOutcome.Acquired stale = (ClaimOutcome.Acquired) gate.claim(call("k", Map.of()));
    elapse(shortLease());
    GateResult<String> winner = gate.execute(call("k", Map.of()), ResultMapper.utf8(), c -> "new");

    assertThat(gate.complete(stale, "old".getBytes(), false)).isFalse();
    assertThat(gate.release(stale)).isFalse();

    assertThat(winner).isInstanceOf(GateResult.Executed.class);
    GateResult<String> replay = gate.execute(call("k", Map.of()), ResultMapper.utf8(), c -> "x");
    assertThat(((GateResult.Replayed<String>) replay).value()).isEqualTo("new");
    assertThat(events).contains("LEASE_LOST");
  }

  // ------------------------------------------------------------------ lease extension, release

  @Test
  void extendedLeaseIsNotTakenOver() throws Exception {
    ClaimId id = id("k");
    LeaseToken token = LeaseToken.random();
    claim(id, "v1:a", token, shortLease());

    assertThat(store.extendLease(id, token, LONG)).isTrue();
    elapse(shortLease());

    assertThat(claim(id, "v1:a", LeaseToken.random(), LONG))
        .isInstanceOf(ClaimAttempt.Existing.class);
    assertThat(store.find(id).orElseThrow().token()).isEqualTo(token);
  }

  @Test
  void extendedLeaseKeepsRowAliveBeyondItsRetention() throws Exception {
    ClaimId id = id("k");
    LeaseToken token = LeaseToken.random();
    store.claim(new ClaimRequest(id, "v1:a", token, shortLease(), shortLease()));

    assertThat(store.extendLease(id, token, LONG)).isTrue();
    elapse(shortLease());

    ClaimRecord row = store.find(id).orElseThrow();
    assertThat(row.expiresAt()).isAfterOrEqualTo(row.leaseExpiresAt());
    assertThat(claim(id, "v1:b", LeaseToken.random(), LONG))
        .isInstanceOf(ClaimAttempt.Existing.class);
  }

  @Test
  void releaseFreesTheKeyForAFreshAttempt() {
    ClaimId id = id("k");
    LeaseToken token = LeaseToken.random();
    claim(id, "v1:a", token, LONG);

    assertThat(store.release(id, token)).isTrue();

    assertThat(store.find(id)).isEmpty();
    ClaimAttempt again = claim(id, "v1:a", LeaseToken.random(), LONG);
    assertThat(again).isInstanceOf(ClaimAttempt.Acquired.class);
    assertThat(again.record().attempt()).isEqualTo(1);
  }

  @Test
  void failingActionReleasesSoTheRetryRuns() {
    IdempotencyGate gate = gate(GatePolicy.defaults());
    AtomicInteger runs = new AtomicInteger();
    assertThatThrownBy(
            () ->
                gate.execute(
                    call("k", Map.of()),
                    ResultMapper.utf8(),
                    ctx -> {
                      runs.incrementAndGet();
                      throw new IllegalStateException("provider down");
                    }))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("provider down");

    GateResult<String> retry =
        gate.execute(
            call("k", Map.of()), ResultMapper.utf8(), ctx -> "ok-" + runs.incrementAndGet());

    assertThat(((GateResult.Executed<String>) retry).value()).isEqualTo("ok-2");
  }

  @Test
  void unknownOutcomeStaysFencedPastItsLeaseUntilItsFenceExpires() throws Exception {
    Duration lease = shortLease();
    Duration fence = shortLease().multipliedBy(8);
    IdempotencyGate gate =
        gate(
            GatePolicy.builder()
                .lease(lease)
                .unknownFence(fence)
                .inFlightWait(Duration.ZERO)
                .build());
    AtomicInteger runs = new AtomicInteger();
    assertThatThrownBy(
            () ->
                gate.execute(
                    call("k", Map.of()),
                    ResultMapper.utf8(),
                    ctx -> {
                      runs.incrementAndGet();
                      throw new dev.mcpgate.core.OutcomeUnknownException("provider timed out");
                    }))
        .isInstanceOf(dev.mcpgate.core.OutcomeUnknownException.class);
    ClaimRecord fenced = store.find(id("k")).orElseThrow();
    assertThat(fenced.state()).isEqualTo(ClaimState.UNKNOWN);
    assertThat(Duration.between(store.now(), fenced.expiresAt()))
        .as("the row expires a fence after it was marked")
        .isGreaterThan(fence.dividedBy(2))
        .isLessThanOrEqualTo(fence);

    // the lease runs out: still fenced, never taken over by lease expiry alone
    elapse(lease.multipliedBy(2));
    GateResult<String> refused =
        gate.execute(
            call("k", Map.of()), ResultMapper.utf8(), ctx -> "ran-" + runs.incrementAndGet());
    assertThat(refused)
        .isInstanceOfSatisfying(
            GateResult.Refused.class,
            r -> assertThat(r.reason()).isEqualTo(RefusalReason.OUTCOME_UNKNOWN));
    assertThat(
            store.claim(
                new ClaimRequest(id("k"), fenced.argsHash(), LeaseToken.random(), LONG, LONG)))
        .as("a claim with the same arguments after the lease")
        .isInstanceOf(ClaimAttempt.Existing.class);
    assertThat(runs).hasValue(1);

    // the fence expires: the key is free again, as a first attempt
    elapse(fence);
    GateResult<String> again =
        gate.execute(
            call("k", Map.of()),
            ResultMapper.utf8(),
            ctx -> "ran-" + runs.incrementAndGet() + "-attempt-" + ctx.attempt());
    assertThat(((GateResult.Executed<String>) again).value()).isEqualTo("ran-2-attempt-1");
  }

  @Test
  void extendLeasesExtendsOnlyTheLeasesStillHeldAndSaysWhich() throws Exception {
    ClaimId held = id("held");
    LeaseToken heldToken = LeaseToken.random();
    claim(held, "v1:a", heldToken, shortLease());
    ClaimId takenOver = id("taken-over");
    LeaseToken[] tokens = takenOver(takenOver, LONG);
    ClaimId completed = id("completed");
    LeaseToken completedToken = LeaseToken.random();
    claim(completed, "v1:a", completedToken, shortLease());
    assertThat(store.complete(completed, completedToken, value("done"), LONG)).isTrue();
    ClaimId unknown = id("unknown");
    LeaseToken unknownToken = LeaseToken.random();
    claim(unknown, "v1:a", unknownToken, shortLease());
    assertThat(store.markUnknown(unknown, unknownToken, LONG)).isTrue();
    ClaimId absent = id("absent");
    LeaseToken absentToken = LeaseToken.random();
    ClaimRecord completedBefore = store.find(completed).orElseThrow();
    ClaimRecord unknownBefore = store.find(unknown).orElseThrow();
    ClaimRecord takenOverBefore = store.find(takenOver).orElseThrow();

    Instant before = store.now();
    ExtendedLeases answer =
        store.extendLeases(
            List.of(
                new dev.mcpgate.core.spi.HeldLease(held, heldToken),
                new dev.mcpgate.core.spi.HeldLease(takenOver, tokens[0]),
                new dev.mcpgate.core.spi.HeldLease(completed, completedToken),
                new dev.mcpgate.core.spi.HeldLease(unknown, unknownToken),
                new dev.mcpgate.core.spi.HeldLease(absent, absentToken)),
            LONG,
            RENEWAL_DEADLINE);

    assertThat(answer.extended()).containsExactly(heldToken);
    assertThat(answer.undecided()).as("nothing is left undecided by a healthy store").isEmpty();
    assertThat(store.find(held).orElseThrow().leaseExpiresAt()).isAfterOrEqualTo(before.plus(LONG));
    assertThat(store.find(takenOver)).contains(takenOverBefore);
    assertThat(store.find(completed)).contains(completedBefore);
    assertThat(store.find(unknown)).contains(unknownBefore);
    assertThat(store.find(absent)).isEmpty();
    elapse(shortLease());
    assertThat(claim(held, "v1:a", LeaseToken.random(), LONG))
        .as("an extended lease is not taken over")
        .isInstanceOf(ClaimAttempt.Existing.class);
    assertThat(store.extendLeases(List.of(), LONG, RENEWAL_DEADLINE).extended()).isEmpty();
  }

  @Test
  void extendLeasesRenewsManyLeasesAtOnce() throws Exception {
    List<dev.mcpgate.core.spi.HeldLease> leases = new ArrayList<>();
    for (int i = 0; i < 230; i++) {
      LeaseToken token = LeaseToken.random();
      ClaimId id = id("many-" + i);
      claim(id, "v1:a", token, shortLease());
      leases.add(new dev.mcpgate.core.spi.HeldLease(id, token));
    }
    ExtendedLeases answer = store.extendLeases(leases, LONG, RENEWAL_DEADLINE);
    assertThat(answer.extended()).hasSize(leases.size());
    elapse(shortLease());
    for (dev.mcpgate.core.spi.HeldLease lease : leases) {
      assertThat(claim(lease.id(), "v1:a", LeaseToken.random(), LONG))
          .as(lease.id().key())
          .isInstanceOf(ClaimAttempt.Existing.class);
    }
  }

  @Test
  void unknownRowIsCompletedOrReleasedOnlyWithItsToken() {
    ClaimId completed = id("unknown-completed");
    LeaseToken token = LeaseToken.random();
    claim(completed, "v1:a", token, LONG);
    assertThat(store.markUnknown(completed, token, LONG)).isTrue();
    assertThat(store.complete(completed, LeaseToken.random(), value("other"), LONG)).isFalse();
    assertThat(store.complete(completed, token, value("found downstream"), LONG)).isTrue();
    assertThat(store.find(completed).orElseThrow().result()).isEqualTo(value("found downstream"));

    ClaimId released = id("unknown-released");
    LeaseToken token2 = LeaseToken.random();
    claim(released, "v1:a", token2, LONG);
    assertThat(store.markUnknown(released, token2, LONG)).isTrue();
    assertThat(store.release(released, LeaseToken.random())).isFalse();
    assertThat(store.release(released, token2)).isTrue();
    assertThat(store.find(released)).isEmpty();
  }

  // ------------------------------------------------------------------ expiry and purge

  @Test
  void rowTimesComeFromTheStoreClock() {
    Instant before = store.now();
    ClaimRecord row = claim(id("k"), "v1:a", LeaseToken.random(), LONG).record();
    Instant after = store.now();

    assertThat(row.createdAt()).isBetween(before, after);
    assertThat(Duration.between(row.createdAt(), row.leaseExpiresAt())).isEqualTo(LONG);
    assertThat(Duration.between(row.createdAt(), row.expiresAt())).isEqualTo(LONG.multipliedBy(6));
    assertThat(store.find(id("k")).orElseThrow()).isEqualTo(row);
  }

  @Test
  void aCompletedRowSaysWhenAndAReplaySaysWhichAttemptAndWhen() {
    IdempotencyGate gate = gate(GatePolicy.defaults());
    Instant before = store.now();
    gate.execute(call("when", Map.of()), ResultMapper.utf8(), ctx -> "done");
    Instant after = store.now();

    ClaimRecord row = store.find(id("when")).orElseThrow();
    assertThat(row.completedAt()).isBetween(row.createdAt(), after);
    assertThat(row.createdAt()).isBetween(before, after);
    assertThat(gate.execute(call("when", Map.of()), ResultMapper.utf8(), ctx -> "again"))
        .isInstanceOfSatisfying(
            GateResult.Replayed.class,
            r -> {
              assertThat(r.attempt()).isEqualTo(1);
              assertThat(r.firstExecutedAt()).isEqualTo(row.createdAt());
              assertThat(r.completedAt()).isEqualTo(row.completedAt());
            });
    LeaseToken open = LeaseToken.random();
    claim(id("open"), "v1:a", open, LONG);
    assertThat(store.find(id("open")).orElseThrow().completedAt()).isNull();
  }

  @Test
  void purgeDeletesOnlyExpiredRowsAndAtMostTheLimit() throws Exception {
    for (int i = 0; i < 5; i++) {
      LeaseToken token = LeaseToken.random();
      ClaimId id = id("old-" + i);
      store.claim(new ClaimRequest(id, "v1:a", token, shortLease(), shortLease()));
      store.complete(id, token, value("r"), shortLease());
    }
    claim(id("live"), "v1:a", LeaseToken.random(), LONG);
    elapse(shortLease());

    int purged = 0;
    int first = store.purgeExpired(2);
    assertThat(first).isBetween(1, 2);
    purged += first;
    for (int round = 0; round < 50; round++) {
      purged += store.purgeExpired(1000);
    }

    for (int i = 0; i < 5; i++) {
      assertThat(store.find(id("old-" + i))).isEmpty();
    }
    assertThat(store.find(id("live"))).isPresent();
    assertThat(purged).isGreaterThanOrEqualTo(5);
  }

  @Test
  void purgeRacingFreshClaimsAndTakeoversNeverDeletesAClaimedRow() throws Exception {
    int keys = 40;
    for (int round = 0; round < 3; round++) {
      List<ClaimId> ids = new ArrayList<>();
      for (int i = 0; i < keys; i++) {
        ClaimId id = id("race-" + round + "-" + i);
        ids.add(id);
        // half expire whole (a fresh claim follows), half only their lease (a takeover follows)
        Duration retention = i % 2 == 0 ? shortLease() : LONG;
        store.claim(new ClaimRequest(id, "v1:a", LeaseToken.random(), shortLease(), retention));
      }
      elapse(shortLease());
      Map<ClaimId, LeaseToken> reclaimed = new ConcurrentHashMap<>();
      ExecutorService pool = Executors.newFixedThreadPool(4);
      try {
        CountDownLatch go = new CountDownLatch(1);
        List<Future<?>> work = new ArrayList<>();
        for (int t = 0; t < 2; t++) {
          work.add(
              pool.submit(
                  () -> {
                    go.await();
                    for (int n = 0; n < 20; n++) {
                      store.purgeExpired(1000);
                    }
                    return null;
                  }));
        }
        for (int t = 0; t < 2; t++) {
          int part = t;
          work.add(
              pool.submit(
                  () -> {
                    go.await();
                    for (int i = part; i < keys; i += 2) {
                      LeaseToken token = LeaseToken.random();
                      if (claim(ids.get(i), "v1:a", token, LONG) instanceof ClaimAttempt.Acquired) {
                        reclaimed.put(ids.get(i), token);
                      }
                    }
                    return null;
                  }));
        }
        go.countDown();
        for (Future<?> f : work) {
          f.get(60, TimeUnit.SECONDS);
        }
      } finally {
        pool.shutdownNow();
      }
      assertThat(reclaimed).hasSize(keys);
      for (Map.Entry<ClaimId, LeaseToken> e : reclaimed.entrySet()) {
        assertThat(store.find(e.getKey()))
            .as("%s after purge", e.getKey())
            .hasValueSatisfying(
                row -> {
                  assertThat(row.token()).isEqualTo(e.getValue());
                  assertThat(row.state()).isEqualTo(ClaimState.IN_PROGRESS);
                });
      }
    }
  }

  @Test
  void decisionsFollowTheStoreClockWhenTheApplicationClockIsHoursOff() throws Exception {
    for (Duration shift : List.of(Duration.ofHours(7), Duration.ofHours(-7))) {
      List<dev.mcpgate.core.GateEvent> events = new java.util.concurrent.CopyOnWriteArrayList<>();
      java.time.InstantSource appClock = () -> store.now().plus(shift);
      IdempotencyGate gate =
          IdempotencyGate.builder(store)
              .clock(appClock)
              .listener(events::add)
              .policy(
                  GatePolicy.builder()
                      .retention(Duration.ofHours(1))
                      .lease(shortLease())
                      .leaseRenewal(Duration.ZERO)
                      .inFlightWait(Duration.ZERO)
                      .build())
              .build();
      String k = "shift" + shift.toHours();
      // retention: an hour-long result is replayed although the application is 7 h ahead
      gate.execute(call(k + "-done", Map.of("a", 1)), ResultMapper.utf8(), ctx -> "first");
      assertThat(
              gate.execute(call(k + "-done", Map.of("a", 1)), ResultMapper.utf8(), ctx -> "second"))
          .as("%s: replay", shift)
          .isInstanceOfSatisfying(
              GateResult.Replayed.class, r -> assertThat(r.value()).isEqualTo("first"));
      // lease: a live lease is refused for what is left of it on the store's clock
      ClaimOutcome.Acquired held = (ClaimOutcome.Acquired) gate.claim(call(k, Map.of("a", 1)));
      GateResult<String> refused =
          gate.execute(call(k, Map.of("a", 1)), ResultMapper.utf8(), ctx -> "too early");
      assertThat(refused)
          .as("%s: live lease", shift)
          .isInstanceOfSatisfying(
              GateResult.Refused.class,
              r -> {
                assertThat(r.reason())
                    .isIn(RefusalReason.IN_PROGRESS, RefusalReason.HOLDER_UNRESPONSIVE);
                assertThat(r.retryAfter()).isPositive().isLessThanOrEqualTo(shortLease());
              });
      // takeover: once the lease ran out on the store's clock, and not before
      elapse(shortLease());
      GateResult<String> takeover =
          gate.execute(
              call(k, Map.of("a", 1)), ResultMapper.utf8(), ctx -> "attempt " + ctx.attempt());
      assertThat(takeover)
          .as("%s: takeover", shift)
          .isInstanceOfSatisfying(
              GateResult.Executed.class, r -> assertThat(r.value()).isEqualTo("attempt 2"));
      assertThat(gate.complete(held, new byte[] {1}, false)).isFalse();
      // the application's clock stamps the events, and nothing else
      assertThat(events)
          .isNotEmpty()
          .allSatisfy(
              e ->
                  assertThat(Duration.between(store.now().plus(shift), e.at()).abs())
                      .isLessThan(Duration.ofMinutes(10)));
    }
  }

  // ------------------------------------------------------------------ isolation

  @Test
  void tenantsDoNotShareKeys() {
    ClaimId a = new ClaimId(tenant + "-a", "refund_order", "same");
    ClaimId b = new ClaimId(tenant + "-b", "refund_order", "same");

    assertThat(claim(a, "v1:a", LeaseToken.random(), LONG))
        .isInstanceOf(ClaimAttempt.Acquired.class);
    assertThat(claim(b, "v1:a", LeaseToken.random(), LONG))
        .isInstanceOf(ClaimAttempt.Acquired.class);
  }

  @Test
  void toolsDoNotShareKeys() {
    ClaimId a = new ClaimId(tenant, "refund_order", "same");
    ClaimId b = new ClaimId(tenant, "send_mail", "same");

    assertThat(claim(a, "v1:a", LeaseToken.random(), LONG))
        .isInstanceOf(ClaimAttempt.Acquired.class);
    assertThat(claim(b, "v1:b", LeaseToken.random(), LONG))
        .isInstanceOf(ClaimAttempt.Acquired.class);
  }

  @Test
  void rawKeyIsKeptExactly() {
    String key = "  Key with spaces, ünïcödé and 😀  ";
    ClaimId id = id(key);
    claim(id, "v1:a", LeaseToken.random(), LONG);

    assertThat(store.find(id)).get().extracting(r -> r.id().key()).isEqualTo(key);
    assertThat(store.find(id(key.trim()))).isEmpty();
  }

  // ------------------------------------------------------------------ results

  @Test
  void theLongestValidIdentityOfFourByteCharactersIsKeptExactly() {
    String emoji = "\ud83d\ude00"; // U+1F600: 2 UTF-16 units, 4 UTF-8 bytes
    String longest = emoji.repeat(ClaimId.MAX_LENGTH);
    String longestTenant = tenant + "-" + emoji.repeat(ClaimId.MAX_LENGTH - tenant.length() - 1);
    ClaimId id = new ClaimId(longestTenant, "\ud800\udc00".repeat(ClaimId.MAX_LENGTH), longest);
    LeaseToken token = LeaseToken.random();

    assertThat(store.claim(new ClaimRequest(id, "v1:a", token, LONG, LONG)))
        .isInstanceOf(ClaimAttempt.Acquired.class);
    assertThat(store.complete(id, token, value("done"), LONG)).isTrue();

    ClaimRecord row = store.find(id).orElseThrow();
    assertThat(row.id()).isEqualTo(id);
    assertThat(row.id().key()).isEqualTo(longest);
    assertThat(store.claim(new ClaimRequest(id, "v1:a", LeaseToken.random(), LONG, LONG)))
        .isInstanceOf(ClaimAttempt.Existing.class);
    ClaimId oneShorter =
        new ClaimId(longestTenant, id.tool(), emoji.repeat(ClaimId.MAX_LENGTH - 1));
    assertThat(store.find(oneShorter)).isEmpty();
  }

  @Test
  void resultsRoundTripByteForByteUpToTheLimit() {
    int limit = maxResultBytesToTest();
    IdempotencyGate gate = gate(GatePolicy.builder().maxResultBytes(limit).build());
    Random random = new Random(42);
    for (int size : new int[] {0, 1, 255, 256, 4096, limit}) {
      byte[] bytes = new byte[size];
      random.nextBytes(bytes);
      gate.execute(call("size-" + size, Map.of()), ResultMapper.bytes(), ctx -> bytes);
      GateResult<byte[]> replay =
          gate.execute(call("size-" + size, Map.of()), ResultMapper.bytes(), ctx -> new byte[] {9});
      assertThat(replay)
          .as("size %d", size)
          .isInstanceOfSatisfying(
              GateResult.Replayed.class, r -> assertThat((byte[]) r.value()).isEqualTo(bytes));
    }
  }

  @Test
  void resultOverTheLimitIsRefusedWithoutFreeingTheKey() {
    IdempotencyGate gate = gate(GatePolicy.builder().maxResultBytes(100).build());
    AtomicInteger runs = new AtomicInteger();

    assertThatThrownBy(
            () ->
                gate.execute(
                    call("big", Map.of()),
                    ResultMapper.bytes(),
                    ctx -> {
                      runs.incrementAndGet();
                      return new byte[101];
                    }))
        .isInstanceOfSatisfying(
            ResultTooLargeException.class,
            e -> {
              assertThat(e.size()).isEqualTo(101);
              assertThat(e.limit()).isEqualTo(100);
              assertThat(e.getMessage()).contains("101 bytes").contains("100 bytes");
            });

    GateResult<byte[]> retry =
        gate.execute(
            call("big", Map.of()),
            ResultMapper.bytes(),
            ctx -> {
              runs.incrementAndGet();
              return new byte[1];
            });
    assertThat(runs).hasValue(1);
    assertThat(retry)
        .isInstanceOfSatisfying(
            GateResult.Refused.class,
            r -> assertThat(r.reason()).isEqualTo(RefusalReason.RESULT_NOT_STORED));
  }

  @Test
  void storedFailureIsReplayedWhenPolicySaysStore() {
    ResultMapper<String> failing =
        new ResultMapper<>() {
          public byte[] toBytes(String v) {
            return v.getBytes();
          }

          public String fromBytes(byte[] b) {
            return new String(b);
          }

          public boolean isFailure(String v) {
            return v.startsWith("error");
          }
        };
    IdempotencyGate store =
        gate(GatePolicy.builder().failureMode(GatePolicy.FailureMode.STORE).build());
    IdempotencyGate release = gate(GatePolicy.defaults());
    AtomicInteger runs = new AtomicInteger();

    store.execute(
        call("s", Map.of()), failing, ctx -> "error: card declined " + runs.incrementAndGet());
    GateResult<String> replay =
        store.execute(call("s", Map.of()), failing, ctx -> "ok " + runs.incrementAndGet());
    release.execute(
        call("r", Map.of()), failing, ctx -> "error: try later " + runs.incrementAndGet());
    GateResult<String> rerun =
        release.execute(call("r", Map.of()), failing, ctx -> "ok " + runs.incrementAndGet());

    assertThat(replay)
        .isInstanceOfSatisfying(
            GateResult.Replayed.class,
            r -> {
              assertThat(r.value()).isEqualTo("error: card declined 1");
              assertThat(r.failure()).isTrue();
            });
    assertThat(((GateResult.Executed<String>) rerun).value()).isEqualTo("ok 3");
  }

  /**
   * The largest result the suite stores and reads back. The default is 256 KiB; a store whose
   * backend caps a row's size lower lowers it.
   *
   * @return the size, in bytes
   */
  protected int maxResultBytesToTest() {
    return 256 * 1024;
  }

  // ------------------------------------------------------------------ concurrency

  /**
   * How many threads race on one key, through gates on the one {@link #store}. The default is 32;
   * raise it for a backend where races are rare.
   *
   * @return the number of threads
   */
  protected int threadsOnOneKey() {
    return 32;
  }

  @Test
  void threadsRacingOnOneKeyRunTheActionOnceAndAllGetItsResult() throws Exception {
    raceOnOneKey("race", null);
  }

  /**
   * Races threads onto one key (free, or with a row that may be taken), and checks that the action
   * ran exactly once, that every caller got that one new result, and that nobody got a conflict, a
   * refusal or {@code staleValue} (the result of a row that was taken).
   */
  private void raceOnOneKey(String key, String staleValue) throws Exception {
    int threads = threadsOnOneKey();
    IdempotencyGate gate =
        gate(GatePolicy.builder().lease(LONG).inFlightWait(Duration.ofSeconds(60)).build());
    AtomicInteger runs = new AtomicInteger();
    CountDownLatch start = new CountDownLatch(1);
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      List<Future<GateResult<String>>> futures = new ArrayList<>();
      for (int i = 0; i < threads; i++) {
        futures.add(
            pool.submit(
                () -> {
                  start.await();
                  return gate.execute(
                      call(key, Map.of("amount", 500)),
                      ResultMapper.utf8(),
                      ctx -> {
                        int n = runs.incrementAndGet();
                        Thread.sleep(50);
                        return "new-" + n + "-" + UUID.randomUUID();
                      });
                }));
      }
      start.countDown();
      Set<String> values = new HashSet<>();
      for (Future<GateResult<String>> f : futures) {
        GateResult<String> r = f.get(120, TimeUnit.SECONDS);
        if (r instanceof GateResult.Executed<String> e) {
          values.add(e.value());
        } else if (r instanceof GateResult.Replayed<String> rp) {
          values.add(rp.value());
        } else {
          throw new AssertionError("a racing caller with the same arguments got " + r);
        }
      }
      assertThat(runs).hasValue(1);
      assertThat(values).hasSize(1).doesNotContain(staleValue);
      assertThat(values.iterator().next()).startsWith("new-1-");
    } finally {
      pool.shutdownNow();
    }
  }

  /** Five trials: a stale read-back is a race, so one trial may miss it. */
  @Test
  void threadsRacingOntoAnExpiredCompletedRowRunOnceAndNeverReplayTheExpiredResult()
      throws Exception {
    IdempotencyGate shortLived =
        gate(GatePolicy.builder().retention(shortLease()).lease(shortLease()).build());
    for (int trial = 0; trial < 5; trial++) {
      String key = "reuse-" + trial;
      assertThat(
              shortLived.execute(
                  call(key, Map.of("amount", 500)), ResultMapper.utf8(), ctx -> "expired result"))
          .isInstanceOf(GateResult.Executed.class);
      elapse(shortLease());

      raceOnOneKey(key, "expired result");
    }
  }

  @Test
  void threadsRacingOntoAnExpiredLeaseTakeItOverOnce() throws Exception {
    IdempotencyGate abandoning = gate(GatePolicy.builder().lease(shortLease()).build());
    assertThat(abandoning.claim(call("reuse", Map.of("amount", 500))))
        .isInstanceOf(ClaimOutcome.Acquired.class);
    elapse(shortLease());

    raceOnOneKey("reuse", null);
    assertThat(store.find(id("reuse")).orElseThrow().attempt()).isEqualTo(2);
  }

  /**
   * The size of the race over many keys: each thread calls every key once, in its own order. The
   * default is 16 threads over 500 keys.
   *
   * @return {threads, keys}
   */
  protected int[] threadsAndKeys() {
    return new int[] {16, 500};
  }

  @Test
  void threadsOverManyKeysRunEachKeysActionOnce() throws Exception {
    int threads = threadsAndKeys()[0];
    int keys = threadsAndKeys()[1];
    IdempotencyGate gate =
        gate(GatePolicy.builder().lease(LONG).inFlightWait(Duration.ofSeconds(60)).build());
    ConcurrentHashMap<String, AtomicInteger> runs = new ConcurrentHashMap<>();
    ConcurrentHashMap<String, Set<String>> results = new ConcurrentHashMap<>();
    CountDownLatch start = new CountDownLatch(1);
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      List<Future<?>> futures = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        int offset = t;
        futures.add(
            pool.submit(
                () -> {
                  start.await();
                  for (int i = 0; i < keys; i++) {
                    String key = "key-" + ((i + offset * 31) % keys);
                    GateResult<String> r =
                        gate.execute(
                            call(key, Map.of("k", key)),
                            ResultMapper.utf8(),
                            ctx ->
                                key
                                    + "#"
                                    + runs.computeIfAbsent(key, k -> new AtomicInteger())
                                        .incrementAndGet());
                    String v =
                        r instanceof GateResult.Executed<String> e
                            ? e.value()
                            : r instanceof GateResult.Replayed<String> rp
                                ? rp.value()
                                : "refused:" + r;
                    results.computeIfAbsent(key, k -> ConcurrentHashMap.newKeySet()).add(v);
                  }
                  return null;
                }));
      }
      start.countDown();
      for (Future<?> f : futures) {
        f.get(300, TimeUnit.SECONDS);
      }
      assertThat(runs).hasSize(keys);
      runs.forEach((key, n) -> assertThat(n.get()).as("executions of %s", key).isEqualTo(1));
      results.forEach(
          (key, vs) -> assertThat(vs).as("results of %s", key).containsExactly(key + "#1"));
    } finally {
      pool.shutdownNow();
    }
  }
}
