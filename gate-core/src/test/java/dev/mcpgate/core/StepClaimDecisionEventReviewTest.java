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
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * Review of ff85b135: "every call that reaches the engine is told exactly one decision (ACQUIRED,
 * REPLAYED, REFUSED, REJECTED, FAILED)"; a claim released (or lost) before its action is FAILED
 * (GateEvent.Type.FAILED: "the lease could not be confirmed before the action"). The step-by-step
 * claim that answers late three times, each time taken over meanwhile, ends in an
 * IdempotencyException that GateEngine.claim does not catch: it is told no decision at all, only
 * three LEASE_LOST attempt events (which before this change followed three ACQUIRED). Meters and
 * spans built on the decision events count the call nowhere.
 */
class StepClaimDecisionEventReviewTest {
  private static final GatePolicy POLICY =
      GatePolicy.builder()
          .lease(Duration.ofMillis(400))
          .leaseRenewal(Duration.ofMillis(100))
          .build();
  private static final Duration PAST_THE_LEASE = Duration.ofMillis(600);
  private static final Set<GateEvent.Type> DECISIONS =
      EnumSet.of(
          GateEvent.Type.ACQUIRED,
          GateEvent.Type.REPLAYED,
          GateEvent.Type.REFUSED,
          GateEvent.Type.REJECTED,
          GateEvent.Type.FAILED);

  private final InMemoryIdempotencyStore shared = InMemoryIdempotencyStore.create();
  private final List<GateEvent> events = new CopyOnWriteArrayList<>();
  private final ToolCall call = ToolCall.of("acme", "refund_order", "k-1", Map.of("order", "o-1"));

  @Test
  void aThirdLostLateStepClaimIsToldExactlyOneDecision() {
    AtomicReference<ClaimOutcome> theirs = new AtomicReference<>();
    try (IdempotencyGate other = IdempotencyGate.builder(shared).policy(POLICY).build()) {
      IdempotencyStore store =
          new ForwardingIdempotencyStore(shared) {
            @Override
            public ClaimAttempt claim(ClaimRequest request) {
              ClaimAttempt attempt = super.claim(request);
              sleep(PAST_THE_LEASE); // answered late: only later the longer it takes
              theirs.set(other.claim(call)); // another attempt takes the key over
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
      try (IdempotencyGate gate =
          IdempotencyGate.builder(store)
              .policy(POLICY)
              .listener(events::add)
              .drainTimeout(Duration.ZERO)
              .build()) {
        Throwable thrown = catchThrowable(() -> gate.claim(call));
        assertThat(thrown).isInstanceOf(IdempotencyException.class);
        assertThat(events)
            .extracting(GateEvent::type)
            .filteredOn(DECISIONS::contains)
            .as(
                "the decision events of one step claim that ended in %s (all events: %s)",
                thrown, events.stream().map(GateEvent::type).toList())
            .containsExactly(GateEvent.Type.FAILED);
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
}
