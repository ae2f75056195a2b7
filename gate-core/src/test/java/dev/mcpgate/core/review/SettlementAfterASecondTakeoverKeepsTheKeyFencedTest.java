package dev.mcpgate.core.review;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.mcpgate.core.ClaimId;
import dev.mcpgate.core.ClaimOutcome;
import dev.mcpgate.core.GateResult;
import dev.mcpgate.core.IdempotencyGate;
import dev.mcpgate.core.LeaseToken;
import dev.mcpgate.core.MutableClock;
import dev.mcpgate.core.Reconciler;
import dev.mcpgate.core.ResultMapper;
import dev.mcpgate.core.StoreUnavailableException;
import dev.mcpgate.core.ToolCall;
import dev.mcpgate.core.memory.InMemoryIdempotencyStore;
import dev.mcpgate.core.spi.ClaimAttempt;
import dev.mcpgate.core.spi.ClaimRequest;
import dev.mcpgate.core.spi.ClaimState;
import dev.mcpgate.core.spi.ForwardingIdempotencyStore;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * The operator reads an in-progress row of attempt 1 whose lease ran out. Before the operator's
 * takeover, a retry takes the row over (attempt 2), runs the action and is paused past its own
 * lease. The operator's takeover then writes attempt 3: not the attempt after the one it read. The
 * settlement took any such row for a fresh one (the row read gone) and released it, so the key was
 * free and the next retry ran the action again, though attempt 2's outcome is unknown. The verdict
 * was about attempt 1 only: the row must stay fenced as unknown and the answer be false.
 */
class SettlementAfterASecondTakeoverKeepsTheKeyFencedTest {

  private static final ToolCall CALL =
      ToolCall.of("acme", "refund_order", "k", Map.of("order_id", "ord_9f2"));

  /** The in-memory store with a hook run just before the next claim. */
  private static final class HookedStore extends ForwardingIdempotencyStore {
    final AtomicReference<Runnable> beforeNextClaim = new AtomicReference<>();
    final AtomicBoolean failNextRelease = new AtomicBoolean();

    HookedStore(InMemoryIdempotencyStore delegate) {
      super(delegate);
    }

    @Override
    public ClaimAttempt claim(ClaimRequest request) {
      Runnable hook = beforeNextClaim.getAndSet(null);
      if (hook != null) {
        hook.run();
      }
      return super.claim(request);
    }

    @Override
    public boolean release(ClaimId id, LeaseToken token) {
      if (failNextRelease.getAndSet(false)) {
        throw new StoreUnavailableException("connection reset (injected)", null);
      }
      return super.release(id, token);
    }
  }

  @Test
  void aRowTakenOverAgainAfterTheOperatorsReadStaysFencedAndNothingRunsAgain() {
    MutableClock clock = new MutableClock(Instant.parse("2030-01-01T00:00:00Z"));
    HookedStore store = new HookedStore(InMemoryIdempotencyStore.create(clock));
    AtomicInteger runsAfterTheSecondTakeover = new AtomicInteger();
    try (IdempotencyGate gate = IdempotencyGate.builder(store).build()) {
      gate.claim(CALL); // attempt 1: its process died
      clock.advance(Duration.ofSeconds(6));
      store.beforeNextClaim.set(
          () -> {
            ClaimOutcome second = gate.claim(CALL); // a retry takes over: attempt 2 runs
            assertThat(second).isInstanceOf(ClaimOutcome.Acquired.class);
            assertThat(((ClaimOutcome.Acquired) second).attempt()).isEqualTo(2);
            clock.advance(Duration.ofSeconds(6)); // and is paused past its lease
          });

      boolean settled = gate.resolveUnknown(CALL.id(), Reconciler.Verdict.notHappened());

      GateResult<String> retry =
          gate.execute(
              CALL,
              ResultMapper.utf8(),
              ctx -> {
                runsAfterTheSecondTakeover.incrementAndGet();
                return "refunded again";
              });
      ClaimId id = CALL.id();
      assertThat(settled).as("the row read (attempt 1) was no longer there to settle").isFalse();
      assertThat(runsAfterTheSecondTakeover)
          .as("attempt 2's outcome is unknown: a retry must not run the refund again")
          .hasValue(0);
      assertThat(retry).isInstanceOf(GateResult.Refused.class);
      assertThat(gate.find(id).orElseThrow().state()).isEqualTo(ClaimState.UNKNOWN);
    }
  }

  /**
   * The holder released its row between the operator's read and claim, so the operator's claim
   * wrote a fresh row, and the store failed the release of it. The operator must be told what
   * holds: the key stays claimed (a call is refused, not run) until the claim's lease ends, and
   * nothing ran under it; not only "could not settle".
   */
  @Test
  void aFreshRowThatCannotBeReleasedIsToldAsKeepingTheKeyClaimed() {
    MutableClock clock = new MutableClock(Instant.parse("2030-01-01T00:00:00Z"));
    HookedStore store = new HookedStore(InMemoryIdempotencyStore.create(clock));
    AtomicInteger runs = new AtomicInteger();
    try (IdempotencyGate gate = IdempotencyGate.builder(store).build()) {
      ClaimOutcome.Acquired holder = (ClaimOutcome.Acquired) gate.claim(CALL);
      clock.advance(Duration.ofSeconds(6));
      store.beforeNextClaim.set(
          () -> {
            assertThat(gate.release(holder)).isTrue(); // its action failed: the key is free
            store.failNextRelease.set(true);
          });

      assertThatThrownBy(() -> gate.resolveUnknown(CALL.id(), Reconciler.Verdict.notHappened()))
          .isInstanceOf(StoreUnavailableException.class)
          .hasMessageContaining("could not be released")
          .hasMessageContaining("refused as in progress, until ")
          .hasMessageContaining("nothing ran under that claim");
      GateResult<String> retry =
          gate.execute(
              CALL,
              ResultMapper.utf8(),
              ctx -> {
                runs.incrementAndGet();
                return "refunded";
              });
      assertThat(retry).isInstanceOf(GateResult.Refused.class);
      assertThat(runs).hasValue(0);
    }
  }

  /**
   * The holder, paused past its lease, wakes between the operator's read and the operator's
   * takeover and fences its own row as unknown. The takeover then finds an unknown row (never taken
   * over) and the settlement answered false, "nothing to settle", though the row is the very
   * attempt the operator read, now fenced and waiting for a verdict. It is settled by its token, as
   * any unknown row is.
   */
  @Test
  void aRowItsHolderFencedAfterTheOperatorsReadIsSettled() {
    MutableClock clock = new MutableClock(Instant.parse("2030-01-01T00:00:00Z"));
    HookedStore store = new HookedStore(InMemoryIdempotencyStore.create(clock));
    AtomicInteger runs = new AtomicInteger();
    try (IdempotencyGate gate = IdempotencyGate.builder(store).build()) {
      ClaimOutcome.Acquired holder = (ClaimOutcome.Acquired) gate.claim(CALL);
      clock.advance(Duration.ofSeconds(6));
      store.beforeNextClaim.set(() -> assertThat(gate.markUnknown(holder)).isTrue());

      boolean settled =
          gate.resolveUnknown(
              CALL.id(), Reconciler.Verdict.happened("refunded".getBytes(StandardCharsets.UTF_8)));

      GateResult<String> retry =
          gate.execute(
              CALL,
              ResultMapper.utf8(),
              ctx -> {
                runs.incrementAndGet();
                return "refunded again";
              });
      assertThat(settled).as("the attempt read was fenced, not gone: it is settled").isTrue();
      assertThat(retry).isInstanceOf(GateResult.Replayed.class);
      assertThat(((GateResult.Replayed<String>) retry).value()).isEqualTo("refunded");
      assertThat(runs).hasValue(0);
    }
  }
}
