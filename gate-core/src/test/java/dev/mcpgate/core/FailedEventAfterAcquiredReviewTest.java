package dev.mcpgate.core;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.core.memory.InMemoryIdempotencyStore;
import dev.mcpgate.core.spi.StoredResult;
import dev.mcpgate.core.spi.TransactionScope;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * Review finding (9260b88, GateEngine.told): a call is told by one decision event, but a call whose
 * claim was ACQUIRED and whose transactional unit of work then could not begin is told twice:
 * {@code ACQUIRED} (outcome "executed") and then {@code FAILED} (outcome
 * "failed.store_unavailable").
 *
 * <p>Failure point: AttemptRunner.runRenewed, {@code scope.begin()} throws a
 * StoreUnavailableException after Claimer emitted ACQUIRED; the CallFailure is built with a null
 * claim ("no attempt ran"), so its attempt is 0 and GateEngine.told takes it for a call the store
 * could not claim. The same holds for AttemptRunner.run (the renewer cannot start) and
 * FailureSettler.notStarted (lease unconfirmed after a pause), which also pass a null claim.
 * Micrometer then counts the call both as executed and as failed.store_unavailable, and the span's
 * decision attribute is overwritten. On 82ef12e the call has one decision event.
 */
class FailedEventAfterAcquiredReviewTest {

  @Test
  void aClaimedCallWhoseUnitOfWorkCannotBeginHasOneDecisionEvent() {
    List<GateEvent> events = new CopyOnWriteArrayList<>();
    TransactionScope<Object> scope =
        new TransactionScope<>() {
          @Override
          public Object begin() {
            throw new StoreUnavailableException("no pooled connection (test)", null);
          }

          @Override
          public boolean complete(
              Object r, ClaimId id, LeaseToken t, StoredResult s, Duration retention) {
            throw new AssertionError("not reached");
          }

          @Override
          public boolean release(Object r, ClaimId id, LeaseToken t) {
            throw new AssertionError("not reached");
          }

          @Override
          public void commit(Object r) {}

          @Override
          public void rollback(Object r) {}

          @Override
          public void close(Object r) {}
        };
    try (IdempotencyGate gate =
        IdempotencyGate.builder(InMemoryIdempotencyStore.create()).listener(events::add).build()) {
      GateResult<String> result =
          gate.execute(
              ToolCall.of("acme", "refund_order", "k-1", Map.of("order", "o-1")),
              ResultMapper.utf8(),
              scope,
              (resource, ctx) -> "ran");

      assertThat(result).isInstanceOf(GateResult.Failed.class);
      assertThat(events.stream().map(GateEvent::outcome).filter(Objects::nonNull).toList())
          .as("decision events of one call: %s", events)
          .hasSize(1);
    }
  }
}
