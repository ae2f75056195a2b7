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
import dev.mcpgate.core.spi.ClaimAttempt;
import dev.mcpgate.core.spi.ClaimRecord;
import dev.mcpgate.core.spi.ClaimRequest;
import dev.mcpgate.core.spi.ClaimState;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Fencing by the lease token and the state: a stale attempt can neither complete, release, extend
 * nor mark unknown, a completed row is final, and an unknown outcome stays fenced until its fence
 * expires.
 *
 * <p>Run as {@link IdempotencyStoreContract.Fencing}, a nested group of the contract.
 */
abstract class FencingTests extends ContractGroup {

  /**
   * @param contract the contract instance of the current test
   */
  FencingTests(IdempotencyStoreContract contract) {
    super(contract);
  }

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
                        })
                    .orThrow())
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
}
