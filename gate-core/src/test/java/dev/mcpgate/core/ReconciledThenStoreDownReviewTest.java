package dev.mcpgate.core;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.core.memory.InMemoryIdempotencyStore;
import dev.mcpgate.core.spi.ClaimAttempt;
import dev.mcpgate.core.spi.ClaimRequest;
import dev.mcpgate.core.spi.ForwardingIdempotencyStore;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Review finding (older than 82ef12e; the FAILED event of 9260b88 does not reach it): a key fenced
 * as unknown, a reconciler that says the effect did NOT happen, and a store that fails the claim
 * made again after the fence is lifted. Reconciliation.apply releases the fence and calls
 * claimAgain; Claimer.write throws a CallFailure (STORE_UNAVAILABLE, a RuntimeException), which
 * Reconciliation.reconcile's {@code catch (RuntimeException e)} swallows as "could not apply the
 * reconciler's verdict; the outcome stays unknown". The caller is then told
 * Refused(OUTCOME_UNKNOWN) (and the listeners REFUSED outcome_unknown) for a key that is free and
 * whose effect is known not to have happened; the truth is Failed(STORE_UNAVAILABLE), safe to
 * retry, and a FAILED event.
 */
class ReconciledThenStoreDownReviewTest {

  @Test
  void aStoreOutageAfterTheFenceIsLiftedIsAStoreFailureNotAnUnknownOutcome() {
    AtomicInteger claims = new AtomicInteger();
    ForwardingIdempotencyStore store =
        new ForwardingIdempotencyStore(InMemoryIdempotencyStore.create()) {
          @Override
          public ClaimAttempt claim(ClaimRequest request) {
            // 1: the step-by-step claim that is fenced; 2: the call's claim, which finds the
            // fence; 3: the claim made again after the reconciler lifted it: the store is down
            if (claims.incrementAndGet() >= 3) {
              throw new StoreUnavailableException("connection refused (test)", null);
            }
            return super.claim(request);
          }
        };
    List<GateEvent> events = new CopyOnWriteArrayList<>();
    ToolCall call = ToolCall.of("acme", "refund_order", "k-1", Map.of("order", "o-1"));
    try (IdempotencyGate gate =
        IdempotencyGate.builder(store)
            .policy(
                GatePolicy.builder()
                    .reconciler((id, downstreamKey) -> Reconciler.Verdict.notHappened())
                    .build())
            .listener(events::add)
            .build()) {
      ClaimOutcome.Acquired first = (ClaimOutcome.Acquired) gate.claim(call);
      assertThat(gate.markUnknown(first)).isTrue();
      events.clear();

      GateResult<String> result = gate.execute(call, ResultMapper.utf8(), ctx -> "ran");

      assertThat(gate.find(call.id())).as("the fence was lifted: the key is free").isEmpty();
      assertThat(result)
          .as("what the caller is told")
          .isInstanceOfSatisfying(
              GateResult.Failed.class,
              f -> assertThat(f.reason()).isEqualTo(FailureReason.STORE_UNAVAILABLE));
    }
  }
}
