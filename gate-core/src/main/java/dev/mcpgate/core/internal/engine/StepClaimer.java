package dev.mcpgate.core.internal.engine;

import dev.mcpgate.core.ClaimOutcome;
import dev.mcpgate.core.FailureReason;
import dev.mcpgate.core.GatePolicy;
import dev.mcpgate.core.GateResult;
import dev.mcpgate.core.ToolCall;
import dev.mcpgate.core.spi.StoredResult;
import java.time.Duration;

/**
 * The step-by-step API's claim ({@code IdempotencyGate.claim}): one claim, without waiting. The
 * lease of a claim that answered late (a slow store, its own retries, a pause) is confirmed before
 * the caller may act on it, as before an action; one whose key another attempt took over meanwhile
 * claims again (twice at most), to tell the key as it is now: replayed, in progress, or acquired
 * anew. Nothing renews a claim it returns.
 */
final class StepClaimer {
  private final Claimer claimer;
  private final LeaseRenewer renewer;
  private final FailureSettler settler;
  private final Events events;
  private final Ticker ticker;
  private final CallsInFlight calls;

  StepClaimer(
      Claimer claimer,
      LeaseRenewer renewer,
      FailureSettler settler,
      Events events,
      Ticker ticker,
      CallsInFlight calls) {
    this.calls = calls;
    this.claimer = claimer;
    this.renewer = renewer;
    this.settler = settler;
    this.events = events;
    this.ticker = ticker;
  }

  /**
   * @param hash the call's arguments' hash
   * @return the outcome of the call's claim, its lease confirmed when it answered late
   */
  ClaimOutcome claim(GatePolicy policy, ToolCall call, String hash) {
    for (int claims = 1; ; claims++) {
      long sent = ticker.nanoTime(); // the claim is sent after this: its lease runs from then
      ClaimOutcome outcome = claimer.claim(policy, call, hash);
      if (outcome instanceof ClaimOutcome.Acquired acquired && calls.isDraining()) {
        throw closed(acquired);
      }
      if (!(outcome instanceof ClaimOutcome.Acquired acquired)
          || ticker.nanoTime() - sent <= LeaseRenewer.Period.of(policy).every().toNanos()) {
        return told(call, ownBytes(outcome)); // in time: at least the lease less a period is left
      }
      LeaseRenewer.Held held =
          renewer.isClosed()
              ? null
              : renewer.confirmBeforeAction(
                  new Renewal(acquired, events, sent + policy.lease().toNanos(), ticker), policy);
      if (held == LeaseRenewer.Held.YES) {
        return told(call, acquired);
      }
      if (held == null || renewer.isClosed()) { // closed before or while it was confirmed
        throw closed(acquired);
      }
      CallFailure notHeld = settler.notStarted(acquired, held); // released where not taken over
      if (held != LeaseRenewer.Held.NO) {
        throw notHeld;
      }
      if (claims == 3) { // told as the call's decision (FAILED), thrown as an IdempotencyException
        throw new CallFailure(
            FailureReason.LEASE_LOST,
            GateResult.Effect.NO,
            true,
            null,
            "the claim of "
                + call.id()
                + " answered late three times, and each time another attempt had taken the key"
                + " over meanwhile: it did not run here; safe to retry with the same key",
            null);
      }
    }
  }

  /**
   * Tells the decision handed to the caller: acquired (the caller's action may run now) or replayed
   * (its result was read); a refusal was told by the claimer.
   */
  private ClaimOutcome told(ToolCall call, ClaimOutcome outcome) {
    if (outcome instanceof ClaimOutcome.Acquired acquired) {
      events.acquired(acquired, call.keySource(), Duration.ZERO);
    } else if (outcome instanceof ClaimOutcome.Replayed replayed) {
      events.replayed(replayed, call.keySource(), Duration.ZERO);
    }
    return outcome;
  }

  /**
   * @return the failure of a claim the gate closed (or began closing) under before it could be
   *     used, the claim released first where the store lets it
   */
  private CallFailure closed(ClaimOutcome.Acquired acquired) {
    CallFailure closed =
        CallFailure.gateClosed(
            "the gate closed before the claim of "
                + acquired.id()
                + " could be used: it did not run; safe to retry with the same key (the claim is"
                + " released where the store lets it)",
            null);
    settler.release(acquired, closed, "the gate closed before the claim could be used");
    return closed;
  }

  /**
   * A replay's result bytes, the caller's own: a store or cache may keep the array it returned, and
   * a caller that changes it (decrypts or wipes it in place) must not change a later replay.
   */
  private static ClaimOutcome ownBytes(ClaimOutcome outcome) {
    if (!(outcome instanceof ClaimOutcome.Replayed r)) {
      return outcome;
    }
    return new ClaimOutcome.Replayed(
        r.id(),
        new StoredResult(r.result().kind(), r.result().body().clone()),
        r.attempt(),
        r.firstExecutedAt(),
        r.completedAt(),
        r.settled());
  }
}
