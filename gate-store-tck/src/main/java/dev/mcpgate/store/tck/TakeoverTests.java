package dev.mcpgate.store.tck;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.core.ClaimId;
import dev.mcpgate.core.ClaimOutcome;
import dev.mcpgate.core.GatePolicy;
import dev.mcpgate.core.GateResult;
import dev.mcpgate.core.IdempotencyGate;
import dev.mcpgate.core.LeaseToken;
import dev.mcpgate.core.ResultMapper;
import dev.mcpgate.core.spi.ClaimAttempt;
import dev.mcpgate.core.spi.ClaimRecord;
import dev.mcpgate.core.spi.ClaimRequest;
import dev.mcpgate.core.spi.ClaimState;
import dev.mcpgate.core.spi.Takeover;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The one takeover rule: which rows a new attempt takes over, with which token and attempt number,
 * and which it leaves alone.
 *
 * <p>Run as {@link IdempotencyStoreContract.TakeoverRule}, a nested group of the contract.
 */
abstract class TakeoverTests extends ContractGroup {

  /**
   * @param contract the contract instance of the current test
   */
  TakeoverTests(IdempotencyStoreContract contract) {
    super(contract);
  }

  /** One row set up for {@link #claimDecisionFollowsTheTakeoverRuleInEveryRowState}. */
  private record RuleCase(
      ClaimId id, ClaimState state, boolean leaseRanOut, boolean rowExpired, boolean sameHash) {}

  /**
   * Whatever language a store decides in (Java, SQL, a DynamoDB condition), its claim decision
   * equals the SPI's one rule, {@link Takeover#allowed}, for every row state, argument hash, lease
   * and expiry; the new attempt number equals {@link Takeover#nextAttempt}; a refused claim leaves
   * the row as it was.
   */
  @Test
  void claimDecisionFollowsTheTakeoverRuleInEveryRowState() throws Exception {
    List<RuleCase> cases = new ArrayList<>();
    for (ClaimState state : ClaimState.values()) {
      for (boolean leaseRanOut : new boolean[] {false, true}) {
        for (boolean rowExpired : new boolean[] {false, true}) {
          for (boolean sameHash : new boolean[] {false, true}) {
            RuleCase c =
                new RuleCase(id("rule-" + cases.size()), state, leaseRanOut, rowExpired, sameHash);
            Duration retention = rowExpired ? shortLease() : LONG.multipliedBy(6);
            LeaseToken token = LeaseToken.random();
            assertThat(
                    store.claim(
                        new ClaimRequest(
                            c.id(), "v1:a", token, leaseRanOut ? shortLease() : LONG, retention)))
                .isInstanceOf(ClaimAttempt.Acquired.class);
            if (state == ClaimState.UNKNOWN) {
              assertThat(store.markUnknown(c.id(), token, retention)).isTrue();
            } else if (state == ClaimState.COMPLETED) {
              assertThat(store.complete(c.id(), token, value("done"), retention)).isTrue();
            }
            cases.add(c);
          }
        }
      }
    }
    elapse(shortLease());

    int acquired = 0;
    for (RuleCase c : cases) {
      ClaimRecord before = store.find(c.id()).orElseThrow();
      Instant now = store.now();
      String hash = c.sameHash() ? "v1:a" : "v1:b";
      boolean allowed = Takeover.allowed(before, hash, now);
      LeaseToken token = LeaseToken.random();
      ClaimAttempt attempt =
          store.claim(new ClaimRequest(c.id(), hash, token, LONG, LONG.multipliedBy(6)));

      assertThat(attempt instanceof ClaimAttempt.Acquired).as("acquired: %s", c).isEqualTo(allowed);
      if (allowed) {
        acquired++;
        assertThat(attempt.record().token()).as("token: %s", c).isEqualTo(token);
        assertThat(attempt.record().attempt())
            .as("attempt: %s", c)
            .isEqualTo(Takeover.nextAttempt(before, now));
      } else {
        assertThat(store.find(c.id())).as("unchanged: %s", c).contains(before);
      }
    }
    assertThat(acquired).as("the cases cover both decisions").isBetween(1, cases.size() - 1);
  }

  @Test
  void expiredLeaseIsTakenOverWithNewTokenAndNextAttempt() throws Exception {
    ClaimId id = id("k");
    LeaseToken second = takenOver(id, LONG)[1];

    ClaimRecord takeover = store.find(id).orElseThrow();
    assertThat(takeover.token()).isEqualTo(second);
    assertThat(takeover.attempt()).isEqualTo(2);
    assertThat(takeover.isTakeover()).isTrue();
  }

  @Test
  void takeoverIsVisibleToTheActionAndListeners() throws Exception {
    List<String> events = new ArrayList<>();
    IdempotencyGate gate =
        IdempotencyGate.builder(store)
            .policy(GatePolicy.builder().lease(shortLease()).build())
            .listener(e -> events.add(e.type() + (e.isTakeover() ? " (takeover)" : "")))
            .build();
    ClaimOutcome.Acquired abandoned = (ClaimOutcome.Acquired) gate.claim(call("k", Map.of()));
    elapse(shortLease());

    GateResult<String> result =
        gate.execute(
            call("k", Map.of()),
            ResultMapper.utf8(),
            ctx ->
                "takeover="
                    + ctx.isTakeover()
                    + " attempt="
                    + ctx.attempt()
                    + " sameDownstreamKey="
                    + ctx.downstreamKey().equals(abandoned.downstreamKey()));

    assertThat(((GateResult.Executed<String>) result).value())
        .isEqualTo("takeover=true attempt=2 sameDownstreamKey=true");
    assertThat(events).containsSubsequence("ACQUIRED", "ACQUIRED (takeover)", "COMPLETED");
  }

  @Test
  void liveLeaseIsNotTakenOverEvenWithSameArguments() {
    ClaimId id = id("k");
    LeaseToken first = LeaseToken.random();
    claim(id, "v1:a", first, LONG);

    ClaimAttempt second = claim(id, "v1:a", LeaseToken.random(), LONG);

    assertThat(second).isInstanceOf(ClaimAttempt.Existing.class);
    assertThat(second.record().token()).isEqualTo(first);
  }

  @Test
  void expiredLeaseWithDifferentArgumentsIsNotTakenOver() throws Exception {
    ClaimId id = id("k");
    LeaseToken first = LeaseToken.random();
    claim(id, "v1:a", first, shortLease());
    elapse(shortLease());

    ClaimAttempt other = claim(id, "v1:b", LeaseToken.random(), LONG);

    assertThat(other).isInstanceOf(ClaimAttempt.Existing.class);
    assertThat(other.record().token()).isEqualTo(first);
    assertThat(other.record().argsHash()).isEqualTo("v1:a");
  }

  @Test
  void completedRowIsNotTakenOverAfterItsLeaseTime() throws Exception {
    ClaimId id = id("k");
    LeaseToken token = LeaseToken.random();
    claim(id, "v1:a", token, shortLease());
    assertThat(store.complete(id, token, value("r"), LONG)).isTrue();
    elapse(shortLease());

    ClaimAttempt again = claim(id, "v1:a", LeaseToken.random(), LONG);

    assertThat(again).isInstanceOf(ClaimAttempt.Existing.class);
    assertThat(again.record().state()).isEqualTo(ClaimState.COMPLETED);
    assertThat(again.record().result()).isEqualTo(value("r"));
  }

  @Test
  void expiredRowIsClaimedFreshEvenWithOtherArguments() throws Exception {
    ClaimId id = id("k");
    LeaseToken token = LeaseToken.random();
    store.claim(new ClaimRequest(id, "v1:a", token, shortLease(), shortLease()));
    assertThat(store.complete(id, token, value("old"), shortLease())).isTrue();
    elapse(shortLease());

    ClaimAttempt fresh = claim(id, "v1:b", LeaseToken.random(), LONG);

    assertThat(fresh).isInstanceOf(ClaimAttempt.Acquired.class);
    assertThat(fresh.record().attempt()).isEqualTo(1);
    assertThat(fresh.record().argsHash()).isEqualTo("v1:b");
    assertThat(fresh.record().result()).isNull();
  }

  @Test
  void unexpiredCompletedRowIsNotClaimedAgain() throws Exception {
    ClaimId id = id("k");
    LeaseToken token = LeaseToken.random();
    claim(id, "v1:a", token, shortLease());
    assertThat(store.complete(id, token, value("r"), LONG)).isTrue();
    elapse(shortLease());

    assertThat(claim(id, "v1:b", LeaseToken.random(), LONG))
        .isInstanceOf(ClaimAttempt.Existing.class);
  }
}
