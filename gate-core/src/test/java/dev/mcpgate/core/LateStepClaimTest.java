package dev.mcpgate.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.mcpgate.core.memory.InMemoryIdempotencyStore;
import dev.mcpgate.core.spi.ClaimAttempt;
import dev.mcpgate.core.spi.ClaimRequest;
import dev.mcpgate.core.spi.ForwardingIdempotencyStore;
import dev.mcpgate.core.spi.IdempotencyStore;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * The step-by-step API ({@link IdempotencyGate#claim}) with a claim the store answers late: its
 * lease may have run out by then, and another attempt may have taken the key over. On a store that
 * answers late (a slow store, its own retries, a pause after the write), the claim's lease is
 * confirmed before the caller is told it holds the key, as it is before a running action.
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

  /** A store whose claim answers {@code late} after it was written, {@code meanwhile} run then. */
  private IdempotencyStore answering(Duration late, Consumer<ClaimAttempt> meanwhile) {
    return new ForwardingIdempotencyStore(shared) {
      @Override
      public ClaimAttempt claim(ClaimRequest request) {
        ClaimAttempt attempt = super.claim(request);
        sleep(late);
        meanwhile.accept(attempt);
        return attempt;
      }

      @Override
      public boolean extendLease(
          dev.mcpgate.core.ClaimId id, dev.mcpgate.core.LeaseToken token, Duration lease) {
        extensions.incrementAndGet();
        return super.extendLease(id, token, lease);
      }
    };
  }

  private IdempotencyGate gate(IdempotencyStore store) {
    return IdempotencyGate.builder(store).policy(POLICY).listener(events::add).build();
  }

  @Test
  void aLateClaimWhoseKeyAnotherAttemptTookOverIsRefusedNotAcquired() {
    AtomicInteger runs = new AtomicInteger();
    try (IdempotencyGate other = IdempotencyGate.builder(shared).policy(POLICY).build();
        IdempotencyGate gate =
            gate(
                answering(
                    PAST_THE_LEASE,
                    a ->
                        other.execute(
                            call, ResultMapper.utf8(), ctx -> "r" + runs.incrementAndGet())))) {

      ClaimOutcome outcome = gate.claim(call);
      if (outcome instanceof ClaimOutcome.Acquired) {
        runs.incrementAndGet(); // what a caller told Acquired does: the effect
      }

      assertThat(runs).as("the effect ran once, by the attempt that took the key over").hasValue(1);
      assertThat(outcome)
          .isInstanceOfSatisfying(
              ClaimOutcome.Refused.class,
              r -> {
                assertThat(r.reason()).isEqualTo(RefusalReason.IN_PROGRESS);
                assertThat(r.message())
                    .contains("answered after its lease ran out")
                    .contains("did not run here");
              });
      assertThat(events.stream().map(GateEvent::type))
          .as("acquired, then its lease lost")
          .containsSubsequence(GateEvent.Type.ACQUIRED, GateEvent.Type.LEASE_LOST);
      assertThat(events.stream().map(GateEvent::outcome).filter(Objects::nonNull).toList())
          .as("the call's one decision event")
          .hasSize(1);
    }
  }

  @Test
  void aLateClaimNobodyTookOverIsAcquiredWithItsLeaseExtended() {
    try (IdempotencyGate gate = gate(answering(PAST_THE_LEASE, a -> {}))) {
      ClaimOutcome outcome = gate.claim(call);
      Instant now = Instant.now();

      assertThat(outcome).isInstanceOf(ClaimOutcome.Acquired.class);
      assertThat(extensions).as("its lease extended before it was returned").hasValue(1);
      assertThat(shared.find(call.id()).orElseThrow().leaseExpiresAt())
          .as("a lease from about now, not the one that ran out while the claim answered")
          .isAfter(now.plusMillis(POLICY.lease().toMillis() / 2));
    }
  }

  @Test
  void aLateClaimWhoseLeaseTheStoreCannotConfirmFailsAndIsReleased() {
    IdempotencyStore late = answering(PAST_THE_LEASE, a -> {});
    IdempotencyStore failingExtension =
        new ForwardingIdempotencyStore(late) {
          @Override
          public boolean extendLease(
              dev.mcpgate.core.ClaimId id, dev.mcpgate.core.LeaseToken token, Duration lease) {
            throw new StoreUnavailableException("connection reset (test)", null);
          }
        };
    try (IdempotencyGate gate = gate(failingExtension)) {
      assertThatThrownBy(() -> gate.claim(call))
          .isInstanceOf(StoreUnavailableException.class)
          .hasMessageContaining("did not confirm its lease")
          .hasMessageContaining("it did not run")
          .hasMessageContaining("the claim was released");
      assertThat(shared.find(call.id())).as("the claim released: a retry runs").isEmpty();
      assertThat(events.stream().map(GateEvent::outcome).filter(Objects::nonNull).toList())
          .as("the call's one decision event")
          .hasSize(1);
    }
  }

  @Test
  void aPromptClaimSendsNoExtension() {
    try (IdempotencyGate gate = gate(answering(Duration.ZERO, a -> {}))) {
      assertThat(gate.claim(call)).isInstanceOf(ClaimOutcome.Acquired.class);
      assertThat(extensions).as("a claim answered within a period costs nothing more").hasValue(0);
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
