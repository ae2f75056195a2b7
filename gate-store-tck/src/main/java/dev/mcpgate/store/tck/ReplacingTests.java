package dev.mcpgate.store.tck;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.core.ClaimId;
import dev.mcpgate.core.ClaimOutcome;
import dev.mcpgate.core.GatePolicy;
import dev.mcpgate.core.GateResult;
import dev.mcpgate.core.IdempotencyGate;
import dev.mcpgate.core.LeaseToken;
import dev.mcpgate.core.Reconciler;
import dev.mcpgate.core.ResultMapper;
import dev.mcpgate.core.ToolCall;
import dev.mcpgate.core.spi.ClaimAttempt;
import dev.mcpgate.core.spi.ClaimRecord;
import dev.mcpgate.core.spi.ClaimRequest;
import dev.mcpgate.core.spi.ClaimState;
import dev.mcpgate.core.spi.Takeover;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A claim {@linkplain ClaimRequest#replacing replacing} a token (an operator's settlement of the
 * attempt it read): written only over the row that holds that token, by the takeover rule, in the
 * claim's one atomic write; never where there is no row, nor over a row claimed since.
 *
 * <p>Run as {@link IdempotencyStoreContract.Replacing}, a nested group of the contract.
 */
abstract class ReplacingTests extends ContractGroup {

  /**
   * @param contract the contract instance of the current test
   */
  ReplacingTests(IdempotencyStoreContract contract) {
    super(contract);
  }

  /** One row set up for {@link #aReplacingClaimFollowsTheRuleInEveryRowState}. */
  private record RuleCase(
      ClaimId id,
      ClaimState state,
      boolean leaseRanOut,
      boolean rowExpired,
      boolean sameHash,
      boolean sameToken,
      LeaseToken held) {}

  /**
   * For every row state, lease, expiry, argument hash, and the token held or another: the store
   * takes the row exactly when {@link Takeover#allowed(ClaimRecord, ClaimRequest, Instant)} says,
   * with {@link Takeover#nextAttempt}; otherwise the row is left as it was.
   */
  @Test
  void aReplacingClaimFollowsTheRuleInEveryRowState() throws Exception {
    List<RuleCase> cases = new ArrayList<>();
    for (ClaimState state : ClaimState.values()) {
      for (boolean leaseRanOut : new boolean[] {false, true}) {
        for (boolean rowExpired : new boolean[] {false, true}) {
          for (boolean sameHash : new boolean[] {false, true}) {
            for (boolean sameToken : new boolean[] {false, true}) {
              ClaimId id = id("replace-" + cases.size());
              Duration retention = rowExpired ? shortLease() : LONG.multipliedBy(6);
              LeaseToken held = LeaseToken.random();
              assertThat(
                      store.claim(
                          new ClaimRequest(
                              id, "v1:a", held, leaseRanOut ? shortLease() : LONG, retention)))
                  .isInstanceOf(ClaimAttempt.Acquired.class);
              if (state == ClaimState.UNKNOWN) {
                assertThat(store.markUnknown(id, held, retention)).isTrue();
              } else if (state == ClaimState.COMPLETED) {
                assertThat(store.complete(id, held, value("done"), retention)).isTrue();
              }
              cases.add(
                  new RuleCase(id, state, leaseRanOut, rowExpired, sameHash, sameToken, held));
            }
          }
        }
      }
    }
    elapse(shortLease());

    int acquired = 0;
    for (RuleCase c : cases) {
      ClaimRecord before = store.find(c.id()).orElseThrow();
      Instant now = store.now();
      LeaseToken token = LeaseToken.random();
      ClaimRequest request =
          new ClaimRequest(
              c.id(),
              c.sameHash() ? "v1:a" : "v1:b",
              token,
              LONG,
              LONG.multipliedBy(6),
              c.sameToken() ? c.held() : LeaseToken.random());
      boolean allowed = Takeover.allowed(before, request, now);

      ClaimAttempt attempt = store.claim(request);

      assertThat(attempt instanceof ClaimAttempt.Acquired).as("acquired: %s", c).isEqualTo(allowed);
      if (allowed) {
        acquired++;
        assertThat(attempt.record().token()).as("token: %s", c).isEqualTo(token);
        assertThat(attempt.record().attempt())
            .as("attempt: %s", c)
            .isEqualTo(Takeover.nextAttempt(before, now));
        assertThat(store.find(c.id()).orElseThrow().token()).as("stored: %s", c).isEqualTo(token);
      } else {
        assertThat(attempt).as("existing: %s", c).isInstanceOf(ClaimAttempt.Existing.class);
        assertThat(attempt.record()).as("the row found: %s", c).isEqualTo(before);
        assertThat(store.find(c.id())).as("unchanged: %s", c).contains(before);
      }
    }
    assertThat(acquired).as("the cases cover both decisions").isBetween(1, cases.size() - 1);
  }

  /**
   * An operator's settlement of a row whose lease ran out, end to end on this store: it takes the
   * row over by a replacing claim, fences it and stores the verdict under its own token; a retry
   * replays the verdict, told as settled ({@link GateResult.Replayed#settled()}), its attempt the
   * takeover's, and runs nothing.
   */
  @Test
  void aResultSettledAfterATakeoverIsReplayedAsSettled() throws Exception {
    GatePolicy brief =
        GatePolicy.builder().lease(shortLease()).leaseRenewal(shortLease().dividedBy(4)).build();
    ToolCall call = call("k-settled", Map.of("amount", 5));
    try (IdempotencyGate gate = gate(brief)) {
      assertThat(gate.claim(call)).isInstanceOf(ClaimOutcome.Acquired.class); // then it dies
      elapse(shortLease());
      assertThat(
              gate.resolveUnknown(
                  call.id(),
                  Reconciler.Verdict.happened("settled".getBytes(StandardCharsets.UTF_8))))
          .isTrue();

      GateResult<String> retry =
          gate.execute(
              call,
              ResultMapper.utf8(),
              ctx -> {
                throw new AssertionError("a settled key ran again");
              });

      assertThat(retry)
          .isInstanceOfSatisfying(
              GateResult.Replayed.class,
              r -> {
                assertThat(r.value()).isEqualTo("settled");
                assertThat(r.settled()).isTrue();
                assertThat(r.attempt()).isEqualTo(2);
              });
    }
  }

  @Test
  void aReplacingClaimWritesNothingWhereThereIsNoRow() {
    ClaimId id = id("gone");

    ClaimAttempt attempt =
        store.claim(
            new ClaimRequest(id, "v1:a", LeaseToken.random(), LONG, LONG, LeaseToken.random()));

    assertThat(attempt).isInstanceOf(ClaimAttempt.Absent.class);
    assertThat(attempt.record()).isNull();
    assertThat(attempt.storeNow()).isNotNull();
    assertThat(store.find(id)).isEmpty();
  }

  /**
   * The row read was released and the key claimed afresh by another attempt, whose lease has run
   * out too: a takeover replacing the token read does not take that attempt's row.
   */
  @Test
  void aRowClaimedAfreshSinceTheReadIsNotTaken() throws Exception {
    ClaimId id = id("afresh");
    LeaseToken read = LeaseToken.random();
    claim(id, "v1:a", read, shortLease());
    assertThat(store.release(id, read)).isTrue();
    LeaseToken afresh = LeaseToken.random();
    claim(id, "v1:a", afresh, shortLease());
    elapse(shortLease());

    ClaimAttempt attempt =
        store.claim(new ClaimRequest(id, "v1:a", LeaseToken.random(), LONG, LONG, read));

    assertThat(attempt).isInstanceOf(ClaimAttempt.Existing.class);
    assertThat(store.find(id).orElseThrow().token()).isEqualTo(afresh);
  }

  /** Racing settlements of one attempt: exactly one takes its row over. */
  @Test
  void racingClaimsReplacingOneTokenTakeItOnce() throws Exception {
    ClaimId id = id("race");
    LeaseToken read = LeaseToken.random();
    claim(id, "v1:a", read, shortLease());
    elapse(shortLease());
    int threads = threadsOnOneKey();
    CountDownLatch start = new CountDownLatch(1);
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      List<Future<ClaimAttempt>> futures = new ArrayList<>();
      for (int i = 0; i < threads; i++) {
        futures.add(
            pool.submit(
                () -> {
                  start.await();
                  return store.claim(
                      new ClaimRequest(id, "v1:a", LeaseToken.random(), LONG, LONG, read));
                }));
      }
      start.countDown();
      List<ClaimAttempt> acquired = new ArrayList<>();
      for (Future<ClaimAttempt> f : futures) {
        ClaimAttempt a = f.get(60, TimeUnit.SECONDS);
        if (a instanceof ClaimAttempt.Acquired) {
          acquired.add(a);
        }
      }
      assertThat(acquired).hasSize(1);
      assertThat(acquired.get(0).record().attempt()).isEqualTo(2);
      assertThat(store.find(id).orElseThrow().token()).isEqualTo(acquired.get(0).record().token());
    } finally {
      pool.shutdownNow();
    }
  }
}
