package dev.mcpgate.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.mcpgate.core.memory.InMemoryIdempotencyStore;
import dev.mcpgate.core.spi.ClaimState;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * An action ran (or may have), and the store refused both its result and the fence that says its
 * outcome is unknown. The attempt's lease is then kept renewed, so that no retry takes the key over
 * and runs the action again, and the fence is written as soon as the store takes it. Real time,
 * short leases, the in-memory store behind a store whose completions and fences fail on demand.
 */
class LateFenceTest {
  private static final Duration LEASE = Duration.ofMillis(400);
  private static final ResultMapper<String> MAPPER = ResultMapper.utf8();

  private final InMemoryIdempotencyStore memory = InMemoryIdempotencyStore.create();
  private final FaultyFenceStore store = new FaultyFenceStore(memory);
  private final List<GateEvent> events = new CopyOnWriteArrayList<>();

  private IdempotencyGate gate() {
    return builder().build();
  }

  private IdempotencyGate.Builder builder() {
    return IdempotencyGate.builder(store)
        .policy(
            GatePolicy.builder()
                .lease(LEASE)
                .leaseRenewal(Duration.ofMillis(100))
                .inFlightWait(Duration.ZERO)
                .build())
        .listener(events::add);
  }

  private static ToolCall call(String key) {
    return ToolCall.of("acme", "refund_order", key, Map.of("order_id", "ord_9f2"));
  }

  @Test
  void aResultAndAFenceTheStoreRefusesKeepTheLeaseUntilTheFenceIsWrittenSoNoRetryRunsAgain()
      throws Exception {
    AtomicInteger runs = new AtomicInteger();
    try (IdempotencyGate gate = gate()) {
      store.refusing.set(true);
      GateResult<String> first =
          gate.execute(call("k"), MAPPER, ctx -> "refund " + runs.incrementAndGet());
      assertThat(first)
          .isInstanceOfSatisfying(
              GateResult.Executed.class,
              e -> assertThat(e.completion()).isEqualTo(GateResult.Completion.STORE_FAILED));

      Thread.sleep(LEASE.multipliedBy(3).toMillis()); // three leases, the fence still refused
      assertThat(gate.execute(call("k"), MAPPER, ctx -> "refund " + runs.incrementAndGet()))
          .as("the lease is kept renewed: a retry finds the key held, not free")
          .isInstanceOfSatisfying(
              GateResult.Refused.class,
              r -> assertThat(r.reason()).isEqualTo(RefusalReason.IN_PROGRESS));
      assertThat(store.fenceTries.get()).as("the fence is tried again").isGreaterThan(2);

      store.refusing.set(false); // the store takes writes again
      awaitState(gate, "k", ClaimState.UNKNOWN);
      assertThat(gate.execute(call("k"), MAPPER, ctx -> "refund " + runs.incrementAndGet()))
          .isInstanceOfSatisfying(
              GateResult.Refused.class,
              r -> assertThat(r.reason()).isEqualTo(RefusalReason.OUTCOME_UNKNOWN));
      assertThat(runs).as("the refund ran once").hasValue(1);
      assertThat(events)
          .anySatisfy(
              e -> {
                assertThat(e.type()).isEqualTo(GateEvent.Type.MARKED_UNKNOWN);
                assertThat(e.message()).contains("written late");
              });
    }
  }

  @Test
  void aLateFenceThatHangsInTheStoreHoldsUpNoRenewalOnAOneThreadSchedulerAndIsNotSentTwice()
      throws Exception {
    java.util.concurrent.ScheduledExecutorService one =
        java.util.concurrent.Executors.newSingleThreadScheduledExecutor();
    AtomicInteger tryingFences = new AtomicInteger();
    try (IdempotencyGate gate = builder().scheduler(one).build()) {
      store.refusing.set(true);
      gate.execute(call("f"), MAPPER, ctx -> "refund"); // its fence refused: written late
      store.refusing.set(false);
      store.lateFenceTakesMs = 2_000; // each late try of it hangs in the store for five leases
      GateResult<String> other =
          gate.execute(
              call("g"),
              MAPPER,
              ctx -> {
                Thread.sleep(LEASE.multipliedBy(4).toMillis());
                tryingFences.set(threadsIn("tryOnce"));
                return ctx.mayHaveLostLease() ? "lease lapsed" : "lease held";
              });
      assertThat(other)
          .as("the late fence's tries run on the renewer's workers, never on the scheduler")
          .isInstanceOfSatisfying(
              GateResult.Executed.class, e -> assertThat(e.value()).isEqualTo("lease held"));
      assertThat(store.mostFencesOut).as("one try of a fence in the store at a time").hasValue(1);
      assertThat(tryingFences.get())
          .as("a late fence's try still out in the store is not sent again (threads on it)")
          .isEqualTo(1);
    } finally {
      one.shutdownNow();
    }
  }

  @Test
  void anActionWhoseOutcomeIsUnknownIsFencedLateToo() throws Exception {
    AtomicInteger runs = new AtomicInteger();
    try (IdempotencyGate gate = gate()) {
      store.refusing.set(true);
      assertThatThrownBy(
              () ->
                  gate.execute(
                          call("u"),
                          MAPPER,
                          ctx -> {
                            runs.incrementAndGet();
                            throw new OutcomeUnknownException("the bank timed out");
                          })
                      .orThrow())
          .isInstanceOf(OutcomeUnknownException.class);
      Thread.sleep(LEASE.multipliedBy(2).toMillis());
      store.refusing.set(false);
      awaitState(gate, "u", ClaimState.UNKNOWN);
      assertThat(gate.execute(call("u"), MAPPER, ctx -> "again " + runs.incrementAndGet()))
          .isInstanceOf(GateResult.Refused.class);
      assertThat(runs).hasValue(1);
    }
  }

  @Test
  void theContextSaysWhetherTheGateFencedTheKeyAsTheGateDecidedIt() {
    java.util.concurrent.atomic.AtomicReference<ClaimContext> seen =
        new java.util.concurrent.atomic.AtomicReference<>();
    try (IdempotencyGate gate = gate()) {
      assertThatThrownBy(
              () ->
                  gate.execute(
                          call("released"),
                          MAPPER,
                          ctx -> {
                            seen.set(ctx);
                            assertThat(ctx.isFencedAsUnknown()).as("while it runs").isFalse();
                            throw new IllegalStateException("declined");
                          })
                      .orThrow())
          .hasMessage("declined");
      assertThat(seen.get().isFencedAsUnknown()).as("released").isFalse();

      assertThatThrownBy(
              () ->
                  gate.execute(
                          call("fenced"),
                          MAPPER,
                          ctx -> {
                            seen.set(ctx);
                            throw new OutcomeUnknownException("timed out");
                          })
                      .orThrow())
          .isInstanceOf(OutcomeUnknownException.class);
      assertThat(seen.get().isFencedAsUnknown()).as("fenced now").isTrue();

      store.refusing.set(true);
      assertThatThrownBy(
              () ->
                  gate.execute(
                          call("pending"),
                          MAPPER,
                          ctx -> {
                            seen.set(ctx);
                            throw new OutcomeUnknownException("timed out");
                          })
                      .orThrow())
          .isInstanceOf(OutcomeUnknownException.class);
      assertThat(seen.get().isFencedAsUnknown()).as("its fence kept to be written").isTrue();
    }
  }

  @Test
  void aFenceTheStoreRefusesForAsLongAsAFenceLastsIsGivenUpAndItsLeaseLeftToRunOut()
      throws Exception {
    try (IdempotencyGate gate =
        IdempotencyGate.builder(store)
            .policy(
                GatePolicy.builder()
                    .lease(LEASE)
                    .leaseRenewal(Duration.ofMillis(100))
                    .unknownFence(Duration.ofMillis(600))
                    .inFlightWait(Duration.ZERO)
                    .build())
            .listener(events::add)
            .build()) {
      store.refusing.set(true); // for good
      gate.execute(call("g"), MAPPER, ctx -> "refund");
      assertThat(gate.engine().renewing()).as("kept while the fence waits").isEqualTo(1);

      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
      while (gate.engine().renewing() > 0 && System.nanoTime() < deadline) {
        Thread.sleep(20);
      }
      assertThat(gate.engine().renewing()).as("given up after the unknown fence's 600 ms").isZero();
      assertThat(events)
          .anySatisfy(
              e -> {
                assertThat(e.type()).isEqualTo(GateEvent.Type.STORE_FAILED);
                assertThat(e.message()).contains("for as long as a fence lasts");
              });
      int tries = store.fenceTries.get();
      Thread.sleep(400);
      assertThat(store.fenceTries.get()).as("no fence tried after giving up").isEqualTo(tries);
    }
  }

  @Test
  void closingTheGateStopsTheLateFence() throws Exception {
    IdempotencyGate gate = gate();
    store.refusing.set(true);
    gate.execute(call("c"), MAPPER, ctx -> "refund");
    Thread.sleep(300);
    gate.close();
    int tries = store.fenceTries.get();
    Thread.sleep(500);
    assertThat(store.fenceTries.get())
        .as("no fence tried after close")
        .isLessThanOrEqualTo(tries + 1);
    store.refusing.set(false);
    assertThat(memory.find(new ClaimId("acme", "refund_order", "c")).orElseThrow().state())
        .isEqualTo(ClaimState.IN_PROGRESS);
  }

  /** How many threads are in a method of that name now. */
  private static int threadsIn(String method) {
    int n = 0;
    for (StackTraceElement[] stack : Thread.getAllStackTraces().values()) {
      for (StackTraceElement frame : stack) {
        if (frame.getMethodName().equals(method)) {
          n++;
          break;
        }
      }
    }
    return n;
  }

  private static void awaitState(IdempotencyGate gate, String key, ClaimState state)
      throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    ClaimId id = new ClaimId("acme", "refund_order", key);
    while (System.nanoTime() < deadline) {
      if (gate.find(id).map(r -> r.state() == state).orElse(false)) {
        return;
      }
      Thread.sleep(20);
    }
    throw new AssertionError(key + " did not reach " + state + " within 5 s: " + gate.find(id));
  }
}
