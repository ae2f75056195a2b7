package dev.mcpgate.core.review;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.mcpgate.core.ClaimOutcome;
import dev.mcpgate.core.GateResult;
import dev.mcpgate.core.IdempotencyGate;
import dev.mcpgate.core.MutableClock;
import dev.mcpgate.core.Reconciler;
import dev.mcpgate.core.ResultMapper;
import dev.mcpgate.core.StoreUnavailableException;
import dev.mcpgate.core.ToolCall;
import dev.mcpgate.core.spi.ClaimAttempt;
import dev.mcpgate.core.spi.ClaimRequest;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * Review of 99f23e8..b378774: the operator's settlement takes an expired in-progress row over by a
 * claim {@linkplain ClaimRequest#replacing replacing} the token read, and trusts the store's answer
 * alone (the attempt-number and fresh-row checks are gone).
 */
class OperatorSettlementReplacingReviewTest {

  private static final ToolCall CALL =
      ToolCall.of("acme", "refund_order", "k", Map.of("order_id", "ord_9f2"));

  /**
   * A store written against the SPI before this change ({@code ClaimRequest} had five components;
   * the five-argument constructor is kept, so it still compiles and runs) never looks at {@code
   * replacing}: the settlement's takeover reaches it as a call's ordinary claim.
   */
  private static final class StoreThatIgnoresReplacing extends HookedStore {
    StoreThatIgnoresReplacing(InstantSource clock) {
      super(clock);
    }

    @Override
    public ClaimAttempt claim(ClaimRequest r) {
      return super.claim(
          new ClaimRequest(r.id(), r.argsHash(), r.token(), r.lease(), r.retention()));
    }
  }

  /**
   * Interleaving: the operator reads attempt 1 (lease run out); its holder wakes, its action
   * failed, it releases the key; the operator's takeover reaches a store that does not know {@code
   * replacing} (a store of one's own not yet upgraded; nothing checks it at build time or at run
   * time): an ordinary claim, which writes a fresh row. The settlement used to catch exactly this
   * ({@code !row.isTakeover()}: release the fresh row, answer false); it now trusts the store, so
   * it fences and completes the fresh row with the operator's result, answers true, and every retry
   * replays "refunded" for a refund that did not happen. Severity: untrue answer (only on a store
   * that does not implement the new SPI component: the engine fails open, not closed).
   */
  @Test
  void aStoreThatIgnoresReplacingDoesNotLetTheSettlementRecreateAReleasedKey() {
    MutableClock clock = new MutableClock(Instant.parse("2030-01-01T00:00:00Z"));
    HookedStore store = new StoreThatIgnoresReplacing(clock);
    try (IdempotencyGate gate = IdempotencyGate.builder(store).build()) {
      ClaimOutcome.Acquired holder = (ClaimOutcome.Acquired) gate.claim(CALL);
      clock.advance(Duration.ofSeconds(6)); // paused past its 5 s lease
      store.beforeNextClaim.set(() -> assertThat(gate.release(holder)).isTrue());

      Throwable thrown =
          catchThrowable(
              () ->
                  gate.resolveUnknown(
                      CALL.id(),
                      Reconciler.Verdict.happened("refunded".getBytes(StandardCharsets.UTF_8))));

      assertThat(gate.find(CALL.id()))
          .as("the holder freed the key; the settlement wrote a completed row in its place")
          .isEmpty();
      assertThat(thrown)
          .as("told that the store does not honour replacing")
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining(StoreThatIgnoresReplacing.class.getName())
          .hasMessageContaining("ClaimRequest.replacing")
          .hasMessageContaining("released, and nothing was settled");
    }
  }

  /**
   * Interleaving: the operator's takeover and fence succeed; its verdict, "not happened", is a
   * release by the takeover's own token, which the store carries out and whose reply is lost. No
   * one else holds that token, so reading the row back (gone) proves the release landed; but the
   * settlement does not read back its verdict's write and throws "could not settle", while the key
   * is settled and free (the next call runs at once). design.md: "A failed commit is resolved by
   * reading the claim row back before anything is said"; OperatorSettlement: "A write the store
   * does not confirm is read back before anything is told". Severity: untrue answer (the verdict
   * write is unchanged by this commit, but its takeover is new and the path is reached now).
   */
  @Test
  void aVerdictReleaseWhoseReplyWasLostIsReadBackAndNotToldAsNotSettled() {
    MutableClock clock = new MutableClock(Instant.parse("2030-01-01T00:00:00Z"));
    HookedStore store = new HookedStore(clock);
    AtomicInteger runs = new AtomicInteger();
    try (IdempotencyGate gate = IdempotencyGate.builder(store).build()) {
      gate.claim(CALL); // attempt 1: its process died
      clock.advance(Duration.ofSeconds(6));
      store.failNextReleaseAfterItsWrite.set(true);

      AtomicReference<Boolean> settled = new AtomicReference<>();
      Throwable thrown =
          catchThrowable(
              () -> settled.set(gate.resolveUnknown(CALL.id(), Reconciler.Verdict.notHappened())));

      GateResult<String> next =
          gate.execute(
              CALL,
              ResultMapper.utf8(),
              ctx -> {
                runs.incrementAndGet();
                return "refunded";
              });
      assertThat(next)
          .as("the verdict was applied: the key is free")
          .isInstanceOf(GateResult.Executed.class);
      assertThat(thrown).as("told 'could not settle' of a settlement that was written").isNull();
      assertThat(settled.get()).isTrue();
    }
  }

  /**
   * The same on Redis, where Lettuce re-sends the release after its reply was lost: the second run
   * finds no row and answers 0, so the settlement returns false, which resolveUnknown documents as
   * "the row changed since it was read (nothing is then written: settle it again)". It was written:
   * the key is free. Severity: untrue answer.
   */
  @Test
  void aVerdictReleaseSentAgainIsNotToldAsNothingWritten() {
    MutableClock clock = new MutableClock(Instant.parse("2030-01-01T00:00:00Z"));
    HookedStore store = new HookedStore(clock);
    try (IdempotencyGate gate = IdempotencyGate.builder(store).build()) {
      gate.claim(CALL);
      clock.advance(Duration.ofSeconds(6));
      store.resendNextRelease.set(true);

      boolean settled = gate.resolveUnknown(CALL.id(), Reconciler.Verdict.notHappened());

      assertThat(gate.find(CALL.id())).as("the verdict was applied").isEmpty();
      assertThat(settled).as("false says nothing was written").isTrue();
    }
  }

  /**
   * A row that expired whole (its holder died a day ago, its expiry passed, it was not purged yet)
   * still holds the token read, so the replacing claim takes it, now as attempt 1 ({@code
   * Takeover.nextAttempt} over an expired row). Before this change such a takeover was released as
   * a fresh row; now it goes on, and when its fence is not confirmed the message names the attempt
   * taken over as {@code row.attempt() - 1}: "taken over from attempt 0". The attempt read was 1.
   * Severity: cosmetic (an untrue detail in an operator's message).
   */
  @Test
  void anExpiredRowTakenOverIsNotToldAsTakenOverFromAttemptZero() {
    MutableClock clock = new MutableClock(Instant.parse("2030-01-01T00:00:00Z"));
    HookedStore store = new HookedStore(clock);
    try (IdempotencyGate gate = IdempotencyGate.builder(store).build()) {
      gate.claim(CALL); // attempt 1: its process died
      clock.advance(Duration.ofHours(25)); // past its lease and its 24 h expiry
      assertThat(gate.find(CALL.id())).isPresent();
      store.failNextMarkUnknown.set(true);

      Throwable thrown =
          catchThrowable(() -> gate.resolveUnknown(CALL.id(), Reconciler.Verdict.notHappened()));

      assertThat(thrown).isInstanceOf(StoreUnavailableException.class);
      assertThat(thrown.getMessage())
          .as("the attempt read was 1")
          .doesNotContain("attempt 0")
          .contains("attempt 1");
    }
  }

  /**
   * Two operators settle attempt 1 at once with opposite verdicts: B settles "happened" entirely
   * between A's read and A's replacing claim. A's claim replaces attempt 1's token, which B's
   * takeover already replaced: A is answered false, B's verdict stands, and nothing runs again. (A
   * suspicion that held: passes.)
   */
  @Test
  void twoOperatorsWithOppositeVerdictsSettleOnce() {
    MutableClock clock = new MutableClock(Instant.parse("2030-01-01T00:00:00Z"));
    HookedStore store = new HookedStore(clock);
    AtomicInteger runs = new AtomicInteger();
    try (IdempotencyGate gate = IdempotencyGate.builder(store).build()) {
      gate.claim(CALL); // attempt 1 refunded; its process died
      clock.advance(Duration.ofSeconds(6));
      AtomicReference<Boolean> b = new AtomicReference<>();
      store.beforeNextClaim.set(
          () ->
              b.set(
                  gate.resolveUnknown(
                      CALL.id(),
                      Reconciler.Verdict.happened("refunded".getBytes(StandardCharsets.UTF_8)))));

      boolean a = gate.resolveUnknown(CALL.id(), Reconciler.Verdict.notHappened());

      GateResult<String> retry =
          gate.execute(
              CALL,
              ResultMapper.utf8(),
              ctx -> {
                runs.incrementAndGet();
                return "refunded again";
              });
      assertThat(b.get()).isTrue();
      assertThat(a).isFalse();
      assertThat(runs).hasValue(0);
      assertThat(retry).isInstanceOf(GateResult.Replayed.class);
    }
  }
}
