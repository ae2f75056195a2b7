package dev.mcpgate.core.internal.engine;

import dev.mcpgate.core.ClaimOutcome;
import dev.mcpgate.core.FailureReason;
import dev.mcpgate.core.GateEvent;
import dev.mcpgate.core.GatePolicy;
import dev.mcpgate.core.GateResult;
import dev.mcpgate.core.spi.IdempotencyStore;

/**
 * Settles an attempt that did not end with a stored result: an action that failed (released, or
 * fenced as unknown per the policy), a result the store could not take (fenced: the effect
 * happened), and an action that must not start (its lease could not be confirmed). Every write is
 * token-checked and made with the thread's interrupt flag cleared; a fence the store refuses goes
 * to the {@link LateFencer}.
 */
final class FailureSettler {
  private final IdempotencyStore store;
  private final Events events;
  private final LateFencer fencer;

  FailureSettler(IdempotencyStore store, Events events, LateFencer fencer) {
    this.store = store;
    this.events = events;
    this.fencer = fencer;
  }

  /**
   * An attempt whose lease the store did not confirm before its action could start: taken over, run
   * out by this process's clock without an answer, or asked about by a thread that was interrupted
   * meanwhile. The action is not started, since another attempt may hold the key and be running it.
   */
  CallFailure notStarted(ClaimOutcome.Acquired claim, LeaseRenewer.Held held) {
    String of = claim.id() + " (attempt " + claim.attempt() + ")";
    String why =
        held == LeaseRenewer.Held.INTERRUPTED
            ? "the call of "
                + of
                + " was interrupted while its lease was being renewed before its action"
            : "the lease of "
                + of
                + " may have run out before its action could start (the claim was answered late,"
                + " this process was paused, or it waited for a connection)";
    if (held == LeaseRenewer.Held.NO) {
      events.emit(
          GateEvent.Type.LEASE_LOST,
          claim,
          "the lease was taken over before the action started; the action did not run",
          null);
      return new CallFailure(
          FailureReason.LEASE_LOST,
          GateResult.Effect.UNKNOWN,
          true,
          null, // this attempt did not run
          why
              + ", and another attempt has taken the key over: the action did not run here; a"
              + " retry with the same key gets that attempt's result",
          null);
    }
    CallFailure unconfirmed =
        CallFailure.storeUnavailable(
            null, // this attempt did not run
            why
                + (held == LeaseRenewer.Held.INTERRUPTED
                    ? ": the action did not run; safe to retry with the same key"
                    : ", and the store did not confirm it in time: the action did not run; safe to"
                        + " retry with the same key"),
            null);
    settle(
        claim,
        unconfirmed,
        () -> {
          if (store.release(claim.id(), claim.token())) {
            events.emit(
                GateEvent.Type.RELEASED,
                claim,
                "the lease could not be confirmed before the action; claim released, the action"
                    + " did not run",
                unconfirmed);
          }
        },
        "the lease could not be confirmed before the action and the claim could not be released;"
            + " the action did not run, and the key stays claimed until its lease expires");
    return unconfirmed;
  }

  /**
   * After the action failed: fence the key as unknown, or release it, per policy. An action that
   * was interrupted or cancelled (its thread interrupted, or an interrupt or a cancellation among
   * the causes: {@link GatePolicy#isOutcomeUnknown}) may have had its effect: it is fenced as
   * unknown, never released.
   */
  void settleFailure(
      GatePolicy policy, ClaimOutcome.Acquired claim, Renewal renewal, Throwable failure) {
    if (policy.isOutcomeUnknown(failure) || interrupted()) {
      fence(
          policy,
          claim,
          renewal,
          failure,
          "outcome unknown; the key is fenced until it is settled or its"
              + " fence of "
              + policy.unknownFence()
              + " runs out");
    } else {
      release(claim, failure, "the action failed");
    }
  }

  /**
   * @return true when the action's thread was interrupted (the failure's own causes are read by
   *     {@link GatePolicy#isOutcomeUnknown})
   */
  static boolean interrupted() {
    return Thread.currentThread().isInterrupted();
  }

  /** The action ran but its result could not be stored: fence the key, the effect happened. */
  boolean fenceUnstored(
      GatePolicy policy, ClaimOutcome.Acquired claim, Renewal renewal, Throwable failure) {
    events.emit(
        GateEvent.Type.STORE_FAILED,
        claim,
        "the action ran but its result could not be stored",
        failure);
    return fence(
        policy,
        claim,
        renewal,
        failure,
        "the action ran but its result could not be stored; the key is fenced"
            + " as unknown until it is settled or its fence of "
            + policy.unknownFence()
            + " runs out");
  }

  /**
   * Fences the key as unknown: the action ran, or may have. When the store cannot take the fence
   * now, the attempt's lease stays renewed (so that no retry takes the key over and runs the action
   * again) and the fence is written as soon as the store takes it ({@link LateFencer#fenceLater}).
   *
   * @return true when the fence found this attempt's result stored after all (a completion whose
   *     answer was lost): nothing to fence
   */
  private boolean fence(
      GatePolicy policy,
      ClaimOutcome.Acquired claim,
      Renewal renewal,
      Throwable failure,
      String message) {
    boolean wasInterrupted = Thread.interrupted();
    try {
      FenceWriter.Fence written = FenceWriter.write(store, events, policy, claim, message, failure);
      if (written == FenceWriter.Fence.WRITTEN) {
        renewal.fenced();
      }
      return written == FenceWriter.Fence.STORED;
    } catch (RuntimeException e) {
      failure.addSuppressed(e);
      boolean kept;
      try {
        kept = fencer.fenceLater(renewal, policy, message, failure); // marks it fenced when kept
      } catch (RuntimeException cannotKeep) {
        failure.addSuppressed(cannotKeep); // a scheduler that refuses: the lease is not kept
        kept = false;
      }
      events.emit(
          GateEvent.Type.STORE_FAILED,
          claim,
          kept
              ? "the outcome is unknown and the key could not be fenced as such yet; its lease is"
                  + " kept renewed, so no retry runs the action meanwhile, and the fence is"
                  + " written as soon as the store takes it"
              : "the outcome is unknown and the key could not be fenced as such; it stays claimed"
                  + " until its lease expires",
          e);
      return false;
    } finally {
      if (wasInterrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /**
   * @param what what happened to the attempt, for the events: "the action failed", "the action did
   *     not start"
   */
  void release(ClaimOutcome.Acquired claim, Throwable failure, String what) {
    settle(
        claim,
        failure,
        () -> {
          if (store.release(claim.id(), claim.token())) {
            events.emit(
                GateEvent.Type.RELEASED, claim, what + "; claim released, a retry runs", failure);
          } else {
            events.emit(
                GateEvent.Type.LEASE_LOST,
                claim,
                what + ", and the lease had been taken over",
                failure);
          }
        },
        what
            + " and the claim could not be released; the key stays claimed until its lease"
            + " expires");
  }

  /**
   * Writes a settlement with the thread's interrupt flag cleared (an interrupted thread cannot
   * borrow a pooled connection), and restores it after.
   */
  private void settle(
      ClaimOutcome.Acquired claim, Throwable failure, Runnable write, String ifFailed) {
    boolean wasInterrupted = Thread.interrupted();
    try {
      write.run();
    } catch (RuntimeException e) {
      failure.addSuppressed(e);
      events.emit(GateEvent.Type.STORE_FAILED, claim, ifFailed, e);
    } finally {
      if (wasInterrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
