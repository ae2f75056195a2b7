package dev.mcpgate.core.internal.engine;

import dev.mcpgate.core.ClaimId;
import dev.mcpgate.core.ClaimOutcome;
import dev.mcpgate.core.FailureReason;
import dev.mcpgate.core.GateEvent;
import dev.mcpgate.core.GateResult;
import dev.mcpgate.core.spi.ClaimRecord;
import dev.mcpgate.core.spi.ClaimState;
import dev.mcpgate.core.spi.IdempotencyStore;
import dev.mcpgate.core.spi.TransactionScope;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Commits an attempt's unit of work, and when the commit throws, finds out from the store what it
 * did instead of guessing: committed, rolled back (the key released), lost to another attempt, or
 * not knowable.
 */
final class CommitResolver {
  private static final Logger LOG = LoggerFactory.getLogger(Events.LOGGER);

  private final IdempotencyStore store;
  private final Events events;

  CommitResolver(IdempotencyStore store, Events events) {
    this.store = store;
    this.events = events;
  }

  /**
   * Commits; a commit that throws is resolved by asking the store, never guessed. The question is a
   * token-checked release: it waits for the row lock that this attempt's transaction held (its
   * completion or release wrote the row), so it is answered only once that transaction has ended,
   * even if its COMMIT was still on its way. A release that succeeds finds the row as it was before
   * the transaction (in progress, this attempt's token): it rolled back, and the key is free now.
   * Otherwise the row read back says: completed by this attempt (it committed), gone after a
   * release (it committed), another attempt's after a completion (the lease was lost: a completed
   * row is never taken over), another attempt's after a release (unknown: it may have committed and
   * been claimed again). A store that cannot be asked leaves it unknown.
   *
   * @param committedState COMPLETED for a stored result, IN_PROGRESS for a release (whose committed
   *     form is no row)
   * @throws CallFailure when the commit failed and nothing of it took effect (rolled back), when
   *     another attempt holds the key (lease lost), or when whether it committed could not be found
   *     out (commit unknown)
   */
  <R> void commit(
      TransactionScope<R> scope,
      R resource,
      ClaimOutcome.Acquired claim,
      boolean transactional,
      ClaimState committedState) {
    try {
      scope.commit(resource);
    } catch (RuntimeException commitFailed) {
      if (!transactional) {
        throw commitFailed;
      }
      AttemptRunner.rollbackQuietly(scope, resource, commitFailed);
      ClaimId id = claim.id();
      boolean released;
      Optional<ClaimRecord> row;
      try {
        released = store.release(id, claim.token());
        row = released ? Optional.empty() : store.find(id);
      } catch (RuntimeException unreadable) {
        commitFailed.addSuppressed(unreadable);
        events.emit(
            GateEvent.Type.STORE_FAILED,
            claim,
            "the commit failed and" + " the claim could not be read back: the outcome is unknown",
            commitFailed);
        throw commitUnknown(
            claim,
            "the commit of "
                + id
                + " failed and its claim"
                + " could not be read back, so whether the action's writes and its result were"
                + " committed is not known; the key stays claimed until its lease expires, and a"
                + " retry with the same key then finds out: it replays the result if they were, and"
                + " runs the action if they were not",
            commitFailed);
      }
      if (released) {
        events.emit(
            GateEvent.Type.RELEASED,
            claim,
            "the commit failed and rolled back; claim" + " released, a retry runs again",
            commitFailed);
        throw new CallFailure(
            FailureReason.ROLLED_BACK,
            GateResult.Effect.NO,
            true,
            claim,
            "the commit of "
                + id
                + " failed and was rolled back"
                + " (the claim read back uncompleted, after the transaction ended): none of the"
                + " action's writes took effect, and the claim was released; safe to retry",
            commitFailed);
      }
      boolean ours = row.isPresent() && row.get().token().equals(claim.token());
      if (committedState == ClaimState.COMPLETED
          && ours
          && row.get().state() == ClaimState.COMPLETED) {
        LOG.info(
            "the commit of {} reported a failure, but the claim reads back completed by"
                + " this attempt: it committed",
            id,
            commitFailed);
        return;
      }
      if (committedState == ClaimState.IN_PROGRESS && row.isEmpty()) {
        LOG.info(
            "the commit of {} reported a failure, but the claim reads back released: it"
                + " committed",
            id,
            commitFailed);
        return;
      }
      if (committedState == ClaimState.IN_PROGRESS) {
        // another attempt holds the key: it took it after this release committed, or after
        // this transaction rolled back and the lease ran out; which, nobody can tell now
        events.emit(
            GateEvent.Type.STORE_FAILED,
            claim,
            "the commit of a release failed and"
                + " the key is held by another attempt: whether it committed is not known",
            commitFailed);
        throw commitUnknown(
            claim,
            "the commit of "
                + id
                + " (a failure result,"
                + " releasing the key) failed, and the key is now held by another attempt: whether"
                + " the action's writes were committed is not known",
            commitFailed);
      }
      // a completed row is never taken over before it expires: another attempt holding the key
      // means this completion never committed (the lease had run out and was taken over)
      throw leaseLost(claim);
    }
  }

  static CallFailure leaseLost(ClaimOutcome.Acquired claim) {
    return leaseLost(
        claim,
        "the lease of "
            + claim.id()
            + " (attempt "
            + claim.attempt()
            + ") was taken over by another attempt before completion; this attempt's transaction"
            + " was rolled back: none of its writes took effect",
        null);
  }

  /** Another attempt holds the key; this one's unit of work was rolled back. */
  static CallFailure leaseLost(ClaimOutcome.Acquired claim, String message, Throwable cause) {
    return new CallFailure(
        FailureReason.LEASE_LOST, GateResult.Effect.UNKNOWN, true, claim, message, cause);
  }

  /** The action ran; whether its commit took effect is not known; a retry finds out. */
  static CallFailure commitUnknown(ClaimOutcome.Acquired claim, String message, Throwable cause) {
    return new CallFailure(
        FailureReason.COMMIT_UNKNOWN, GateResult.Effect.UNKNOWN, true, claim, message, cause);
  }
}
