package dev.mcpgate.store.tck;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.core.ClaimOutcome;
import dev.mcpgate.core.GatePolicy;
import dev.mcpgate.core.GateResult;
import dev.mcpgate.core.IdempotencyGate;
import dev.mcpgate.core.LeaseToken;
import dev.mcpgate.core.RefusalReason;
import dev.mcpgate.core.ResultMapper;
import dev.mcpgate.core.spi.ClaimAttempt;
import dev.mcpgate.core.spi.ClaimRecord;
import dev.mcpgate.core.spi.ClaimState;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The outcome table: a fresh claim, a replay that runs nothing, a conflict in every state, a call
 * in flight.
 *
 * <p>Run as {@link IdempotencyStoreContract.Outcomes}, a nested group of the contract.
 */
abstract class OutcomeTableTests extends ContractGroup {

  /**
   * @param contract the contract instance of the current test
   */
  OutcomeTableTests(IdempotencyStoreContract contract) {
    super(contract);
  }

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

  /**
   * A completed row keeps the token it was completed with, as {@code find} and a later claim read
   * it: a replay tells a result stored under a settlement's token ({@link LeaseToken#settlement()})
   * as settled ({@link GateResult.Replayed#settled()}), which a store that dropped the token would
   * make untrue.
   */
  @Test
  void aCompletedRowKeepsTheTokenThatCompletedIt() {
    LeaseToken token = LeaseToken.settlement();
    claim(id("k-kept"), "v1:a", token, LONG);
    assertThat(store.complete(id("k-kept"), token, value("settled"), LONG)).isTrue();

    ClaimAttempt again = claim(id("k-kept"), "v1:a", LeaseToken.random(), LONG);

    assertThat(store.find(id("k-kept")))
        .get()
        .satisfies(
            r -> {
              assertThat(r.state()).isEqualTo(ClaimState.COMPLETED);
              assertThat(r.token()).isEqualTo(token);
            });
    assertThat(again).isInstanceOf(ClaimAttempt.Existing.class);
    assertThat(again.record().token()).isEqualTo(token);
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
}
