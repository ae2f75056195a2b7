package dev.mcpgate.core;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.core.memory.InMemoryIdempotencyStore;
import dev.mcpgate.core.spi.ClaimState;
import dev.mcpgate.core.spi.IdempotencyStore;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A reviewer's cases against the late fence (681d9a2), each of which failed before its fix: renewal
 * off, a close while the store is healthy again, a late try that meets its own earlier write, an
 * Error on the fencer thread. Real time, short leases, the in-memory store behind a forwarding
 * store that fails on demand.
 */
class LateFenceReviewTest {
  private static final Duration LEASE = Duration.ofMillis(400);
  private static final ResultMapper<String> MAPPER = ResultMapper.utf8();
  private static final ClaimId ID = new ClaimId("acme", "refund_order", "k");

  private final InMemoryIdempotencyStore memory = InMemoryIdempotencyStore.create();
  private final FaultyFenceStore store = new FaultyFenceStore(memory);
  private final List<GateEvent> events = new CopyOnWriteArrayList<>();

  private IdempotencyGate gate(IdempotencyStore over, Duration renewal) {
    return IdempotencyGate.builder(over)
        .policy(
            GatePolicy.builder()
                .lease(LEASE)
                .leaseRenewal(renewal)
                .inFlightWait(Duration.ZERO)
                .build())
        .listener(events::add)
        .build();
  }

  private static ToolCall call() {
    return ToolCall.of("acme", "refund_order", "k", Map.of("order_id", "ord_9f2"));
  }

  /**
   * Finding 1, fixed; what failed before: With lease renewal off ({@code leaseRenewal(ZERO)}, a
   * documented policy) fenceLater still returns true, so the STORE_FAILED event says the lease "is
   * kept renewed, so no retry runs the action meanwhile" - but nothing renews it: the lease runs
   * out and a retry takes the key over and runs the action again.
   */
  @Test
  void withRenewalOffAFenceSaidToBeKeptRenewedLetsARetryRunTheActionAgain() throws Exception {
    AtomicInteger runs = new AtomicInteger();
    try (IdempotencyGate gate = gate(store, Duration.ZERO)) {
      store.refusing.set(true);
      gate.execute(call(), MAPPER, ctx -> "refund " + runs.incrementAndGet());
      assertThat(events)
          .anySatisfy(
              e -> {
                assertThat(e.type()).isEqualTo(GateEvent.Type.STORE_FAILED);
                assertThat(e.message()).contains("kept renewed, so no retry runs the action");
              });

      Thread.sleep(LEASE.toMillis() + 150); // the store still refuses writes, not claims
      gate.execute(call(), MAPPER, ctx -> "refund " + runs.incrementAndGet());

      assertThat(runs)
          .as("the gate said the lease is kept renewed so that no retry runs the action meanwhile")
          .hasValue(1);
    }
  }

  /**
   * Finding 2, fixed; what failed before: The store takes writes again, but the gate is closed (a
   * deploy, a shutdown hook) before the fencer's next period: the pending fence is dropped without
   * a last try, the key stays IN_PROGRESS to a lease nobody renews, and another replica's retry
   * takes it over and runs the action again. The docs call the renewals' limit "the one gap left".
   */
  @Test
  void closingTheGateWhileTheStoreIsHealthyAgainWritesTheFenceSoNoReplicaRunsTheActionAgain()
      throws Exception {
    AtomicInteger runs = new AtomicInteger();
    IdempotencyGate gate = gate(store, Duration.ofMillis(100));
    store.refusing.set(true);
    gate.execute(call(), MAPPER, ctx -> "refund " + runs.incrementAndGet());
    store.refusing.set(false); // the store is healthy again, before the fencer's next try
    gate.close();

    try (IdempotencyGate replica = gate(memory, Duration.ofMillis(100))) {
      Thread.sleep(LEASE.toMillis() + 150);
      assertThat(memory.find(ID).orElseThrow().state())
          .as("the close tried the fence once more, and the healthy store took it")
          .isEqualTo(ClaimState.UNKNOWN);
      replica.execute(call(), MAPPER, ctx -> "refund " + runs.incrementAndGet());
      assertThat(runs).as("the refund ran once").hasValue(1);
    }
  }

  /**
   * Finding 3 (message), fixed; what failed before: A fence whose write landed but whose reply was
   * lost is retried late; the retry finds the row UNKNOWN by this very attempt and the gate emits
   * LEASE_LOST "the lease had been taken over before the key could be fenced: the other attempt
   * decides". No other attempt exists: the key is fenced by this one.
   */
  @Test
  void aLateFenceThatFindsItsOwnFenceSaysTheLeaseWasTakenOver() throws Exception {
    try (IdempotencyGate gate = gate(store, Duration.ofMillis(100))) {
      store.refusing.set(true);
      gate.execute(call(), MAPPER, ctx -> "refund");
      store.refusing.set(false);
      store.loseNextFenceReply.set(true); // the fencer's first try lands, its reply is lost

      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
      while (System.nanoTime() < deadline && gate.engine().renewing() > 0) {
        Thread.sleep(20);
      }
      Thread.sleep(300);
      assertThat(memory.find(ID).orElseThrow().state()).isEqualTo(ClaimState.UNKNOWN);
      assertThat(memory.find(ID).orElseThrow().attempt()).isEqualTo(1);
      assertThat(events)
          .as("no other attempt ever held the key")
          .noneSatisfy(
              e -> {
                assertThat(e.type()).isEqualTo(GateEvent.Type.LEASE_LOST);
                assertThat(e.message()).contains("taken over");
              });
    }
  }

  /**
   * Finding 5 (low), fixed; what failed before: tryFence catches RuntimeException only. An Error
   * out of the late write (here a listener's, on the fencer thread; a driver's NoClassDefFoundError
   * or an OOM likewise) ends the scheduled task silently with fencePending still set: stop() is
   * never called, so the attempt's renewal stays in its group and is sent every period until the
   * gate closes, for a row that is UNKNOWN and will never again be extended.
   */
  @Test
  void anErrorOnTheFencerThreadLeavesTheRenewalRunningForever() throws Exception {
    try (IdempotencyGate gate =
        IdempotencyGate.builder(store)
            .policy(
                GatePolicy.builder()
                    .lease(LEASE)
                    .leaseRenewal(Duration.ofMillis(100))
                    .inFlightWait(Duration.ZERO)
                    .build())
            .listener(
                e -> {
                  if (e.type() == GateEvent.Type.MARKED_UNKNOWN) {
                    throw new AssertionError("listener bug (test)");
                  }
                })
            .build()) {
      store.refusing.set(true);
      gate.execute(call(), MAPPER, ctx -> "refund");
      store.refusing.set(false);
      Thread.sleep(1_000); // ten renewal periods
      assertThat(memory.find(ID).orElseThrow().state()).isEqualTo(ClaimState.UNKNOWN);
      assertThat(gate.engine().renewing())
          .as("the fenced attempt is no longer renewed once its fence landed")
          .isZero();
    }
  }
}
