package dev.mcpgate.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.mcpgate.core.memory.InMemoryIdempotencyStore;
import dev.mcpgate.core.spi.ClaimAttempt;
import dev.mcpgate.core.spi.ClaimRequest;
import dev.mcpgate.core.spi.ExtendedLeases;
import dev.mcpgate.core.spi.ForwardingIdempotencyStore;
import dev.mcpgate.core.spi.HeldLease;
import dev.mcpgate.core.spi.IdempotencyStore;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The step-by-step API ({@link IdempotencyGate#claim}) with a claim the store answers late: its
 * lease may have run out by then, and another attempt may have taken the key over. The claim's
 * lease is confirmed before the caller is told it holds the key, as before a running action (the
 * renewer's confirmation: each try bounded by a deadline); a claim whose key was taken over claims
 * again and tells the key as it now is. Reviews 9 to 12 found the cases.
 */
class LateStepClaimTest {
  private static final GatePolicy POLICY =
      GatePolicy.builder()
          .lease(Duration.ofMillis(400))
          .leaseRenewal(Duration.ofMillis(100))
          .build();
  private static final Duration PAST_THE_LEASE = Duration.ofMillis(600);

  private final InMemoryIdempotencyStore shared = InMemoryIdempotencyStore.create();
  private final List<GateEvent> events = new CopyOnWriteArrayList<>();
  private final AtomicInteger extensions = new AtomicInteger();
  private final ToolCall call = ToolCall.of("acme", "refund_order", "k-1", Map.of("order", "o-1"));

  /**
   * A store whose first claim answers {@code late} after it was written, {@code meanwhile} run
   * then; {@code extended} runs after each lease extension is written, before it answers.
   */
  private IdempotencyStore answering(Duration late, Runnable meanwhile, Runnable extended) {
    AtomicBoolean first = new AtomicBoolean(true);
    return new ForwardingIdempotencyStore(shared) {
      @Override
      public ClaimAttempt claim(ClaimRequest request) {
        ClaimAttempt attempt = super.claim(request);
        if (first.getAndSet(false)) {
          sleep(late);
          meanwhile.run();
        }
        return attempt;
      }

      @Override
      public ExtendedLeases extendLeases(List<HeldLease> leases, Duration lease, Duration within) {
        extensions.incrementAndGet();
        ExtendedLeases answer = super.extendLeases(leases, lease, within);
        extended.run();
        return answer;
      }
    };
  }

  /** No drain: a gate closed during a claim closes at once, as after its drain timeout. */
  private IdempotencyGate gate(IdempotencyStore store) {
    return IdempotencyGate.builder(store)
        .policy(POLICY)
        .listener(events::add)
        .drainTimeout(Duration.ZERO)
        .build();
  }

  @Test
  void aLateClaimWhoseKeyAnotherAttemptTookOverAndCompletedIsReplayed() {
    AtomicInteger runs = new AtomicInteger();
    try (IdempotencyGate other = IdempotencyGate.builder(shared).policy(POLICY).build();
        IdempotencyGate gate =
            gate(
                answering(
                    PAST_THE_LEASE,
                    () ->
                        other.execute(
                            call, ResultMapper.utf8(), ctx -> "r" + runs.incrementAndGet()),
                    () -> {}))) {

      ClaimOutcome outcome = gate.claim(call);
      if (outcome instanceof ClaimOutcome.Acquired) {
        runs.incrementAndGet(); // what a caller told Acquired does: the effect
      }

      assertThat(runs).as("the effect ran once, by the attempt that took the key over").hasValue(1);
      assertThat(outcome)
          .as("the key as it now is: completed by the other attempt, not in progress")
          .isInstanceOfSatisfying(
              ClaimOutcome.Replayed.class,
              r ->
                  assertThat(new String(r.result().body(), StandardCharsets.UTF_8))
                      .isEqualTo("r1"));
      assertThat(events.stream().map(GateEvent::type))
          .as("its lease lost before it was handed over (never told acquired), then the replay")
          .containsExactly(GateEvent.Type.LEASE_LOST, GateEvent.Type.REPLAYED);
    }
  }

  @Test
  void aLateClaimNobodyTookOverIsAcquiredWithItsLeaseExtended() {
    try (IdempotencyGate gate = gate(answering(PAST_THE_LEASE, () -> {}, () -> {}))) {
      long before = System.currentTimeMillis();
      ClaimOutcome outcome = gate.claim(call);

      assertThat(outcome).isInstanceOf(ClaimOutcome.Acquired.class);
      assertThat(extensions).as("its lease extended before it was returned").hasValue(1);
      assertThat(shared.find(call.id()).orElseThrow().leaseExpiresAt().toEpochMilli())
          .as("a lease from the extension, not the one that ran out while the claim answered")
          .isGreaterThan(before + PAST_THE_LEASE.toMillis());
    }
  }

  /**
   * Review 10: the extension is written, and its answer comes back after the lease it gave ran out
   * (the store's retries, a pause); another attempt claims the key meanwhile and runs. An answer
   * past its try's deadline proves nothing: the claim is not told Acquired, and is released.
   */
  @Test
  void anExtensionAnsweredLateIsNotProofTheKeyIsStillHeld() throws Exception {
    AtomicInteger runs = new AtomicInteger();
    CountDownLatch otherRan = new CountDownLatch(1);
    AtomicBoolean once = new AtomicBoolean();
    try (IdempotencyGate other = IdempotencyGate.builder(shared).policy(POLICY).build();
        IdempotencyGate gate =
            gate(
                answering(
                    PAST_THE_LEASE,
                    () -> {},
                    () -> {
                      if (once.compareAndSet(false, true)) {
                        parkUninterruptibly(PAST_THE_LEASE); // the extension's answer, late
                        other.execute(
                            call, ResultMapper.utf8(), ctx -> "r" + runs.incrementAndGet());
                        otherRan.countDown();
                      }
                    }))) {

      Throwable thrown =
          catchThrowable(
              () -> {
                if (gate.claim(call) instanceof ClaimOutcome.Acquired) {
                  runs.incrementAndGet(); // what a caller told Acquired does: the effect
                }
              });
      assertThat(otherRan.await(10, TimeUnit.SECONDS)).isTrue();

      assertThat(runs).as("the effect ran once").hasValue(1);
      assertThat(thrown)
          .as("the lease not confirmed in time: nothing ran here, the claim released")
          .isInstanceOf(StoreUnavailableException.class)
          .hasMessageContaining("did not confirm it in time")
          .hasMessageContaining("the action did not run");
    }
  }

  @Test
  void aLateClaimWhoseLeaseTheStoreCannotConfirmFailsAndIsReleased() {
    IdempotencyStore failingExtension =
        new ForwardingIdempotencyStore(answering(PAST_THE_LEASE, () -> {}, () -> {})) {
          @Override
          public ExtendedLeases extendLeases(
              List<HeldLease> leases, Duration lease, Duration within) {
            throw new StoreUnavailableException("connection reset (test)", null);
          }
        };
    try (IdempotencyGate gate = gate(failingExtension)) {
      assertThat(catchThrowable(() -> gate.claim(call)))
          .isInstanceOf(StoreUnavailableException.class)
          .hasMessageContaining("did not confirm it in time")
          .hasMessageContaining("the action did not run");
      assertThat(shared.find(call.id())).as("the claim released: a retry runs").isEmpty();
    }
  }

  @Test
  void aPromptClaimSendsNoExtension() {
    try (IdempotencyGate gate = gate(answering(Duration.ZERO, () -> {}, () -> {}))) {
      assertThat(gate.claim(call)).isInstanceOf(ClaimOutcome.Acquired.class);
      assertThat(extensions).as("a claim answered within a period costs nothing more").hasValue(0);
    }
  }

  /** When the gate closes, for the closed-gate cases. */
  enum Closed {
    /** While the late claim is on its way (review 11): the store is never asked to confirm. */
    BEFORE_THE_CONFIRMATION,
    /** While the late claim's lease is being confirmed (review 12): the next try is refused. */
    DURING_THE_CONFIRMATION
  }

  /**
   * Reviews 11 and 12: a gate closed while a late claim is on its way or being confirmed: the
   * failure says the gate closed, not that the store did not confirm, and the claim is released.
   */
  @ParameterizedTest
  @EnumSource(Closed.class)
  void aGateClosedDuringALateClaimIsToldAsAClosedGate(Closed when) {
    AtomicReference<IdempotencyGate> closing = new AtomicReference<>();
    IdempotencyStore store =
        when == Closed.BEFORE_THE_CONFIRMATION
            ? answering(PAST_THE_LEASE, () -> closing.get().close(), () -> {})
            : new ForwardingIdempotencyStore(answering(PAST_THE_LEASE, () -> {}, () -> {})) {
              @Override
              public ExtendedLeases extendLeases(
                  List<HeldLease> leases, Duration lease, Duration within) {
                closing.get().close();
                throw new StoreUnavailableException("connection reset (test)", null);
              }
            };
    IdempotencyGate gate = gate(store);
    closing.set(gate);

    Throwable thrown = catchThrowable(() -> gate.claim(call));

    if (when == Closed.BEFORE_THE_CONFIRMATION) {
      assertThat(extensions).as("the store was never asked to confirm the lease").hasValue(0);
    }
    assertThat(thrown)
        .isInstanceOf(IdempotencyException.class)
        .hasMessageContaining("the gate closed")
        .hasMessageContaining("it did not run")
        .hasMessageNotContaining("the store did not confirm")
        .hasMessageNotContaining("did not confirm it in time");
    assertThat(shared.find(call.id())).as("the claim released").isEmpty();
  }

  /** Review 11: the caller's thread interrupted while its claim answers late. */
  @Test
  void anInterruptedLateClaimIsReleasedAndKeepsTheFlag() {
    try (IdempotencyGate gate =
        gate(answering(PAST_THE_LEASE, () -> Thread.currentThread().interrupt(), () -> {}))) {
      Throwable thrown = catchThrowable(() -> gate.claim(call));

      assertThat(Thread.interrupted()).as("the interrupt flag kept").isTrue();
      assertThat(thrown)
          .isInstanceOf(StoreUnavailableException.class)
          .hasMessageContaining("interrupted")
          .hasMessageContaining("did not run");
      assertThat(shared.find(call.id())).as("released").isEmpty();
    }
  }

  /**
   * Review 11: three late claims, each taken over by another attempt, which lets the key go before
   * the next: the claim ends with the documented exception, saying nothing ran.
   */
  @Test
  void aThirdLostLateClaimEndsInADocumentedException() {
    AtomicReference<ClaimOutcome> theirs = new AtomicReference<>();
    try (IdempotencyGate other = IdempotencyGate.builder(shared).policy(POLICY).build()) {
      IdempotencyStore store =
          new ForwardingIdempotencyStore(shared) {
            @Override
            public ClaimAttempt claim(ClaimRequest request) {
              ClaimAttempt attempt = super.claim(request);
              sleep(PAST_THE_LEASE);
              theirs.set(other.claim(call)); // takes the key over
              return attempt;
            }

            @Override
            public ExtendedLeases extendLeases(
                List<HeldLease> leases, Duration lease, Duration within) {
              ExtendedLeases answer = super.extendLeases(leases, lease, within);
              if (theirs.get() instanceof ClaimOutcome.Acquired a) {
                other.release(a); // and lets it go before the next claim
              }
              return answer;
            }
          };
      try (IdempotencyGate gate = gate(store)) {
        Throwable thrown = catchThrowable(() -> gate.claim(call));

        assertThat(events.stream().filter(e -> e.type() == GateEvent.Type.LEASE_LOST).count())
            .as("three claims lost before they could be handed over")
            .isEqualTo(3);
        assertThat(events)
            .extracting(GateEvent::type)
            .as("none told acquired: none was the caller's to act on")
            .doesNotContain(GateEvent.Type.ACQUIRED);
        assertThat(thrown)
            .isInstanceOf(IdempotencyException.class)
            .hasMessageContaining("three times")
            .hasMessageContaining("it did not run here");
      }
    }
  }

  private static void sleep(Duration d) {
    try {
      Thread.sleep(d.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** Waits {@code d} whatever interrupts the thread (a try given up at its deadline is). */
  private static void parkUninterruptibly(Duration d) {
    long end = System.nanoTime() + d.toNanos();
    for (long left = d.toNanos(); left > 0; left = end - System.nanoTime()) {
      LockSupport.parkNanos(left);
    }
    Thread.interrupted();
  }
}
