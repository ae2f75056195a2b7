package dev.mcpgate.core.internal.engine;

import dev.mcpgate.core.ClaimId;
import dev.mcpgate.core.ClaimOutcome;
import dev.mcpgate.core.FailureReason;
import dev.mcpgate.core.GateEvent;
import dev.mcpgate.core.GatePolicy;
import dev.mcpgate.core.GateResult;
import dev.mcpgate.core.ResultCodec;
import dev.mcpgate.core.ResultTooLargeException;
import dev.mcpgate.core.spi.ClaimingScope;
import dev.mcpgate.core.spi.StoredResult;
import dev.mcpgate.core.spi.TransactionScope;
import java.time.Duration;

/**
 * Stores an acquired claim's result: encodes it with the codec, enforces the size limit, and writes
 * the token-checked completion through a unit of work. A result over the limit (the gate's, or the
 * store's own) is not stored, and the key is fenced with a not-stored marker instead of being
 * freed: the effect happened. The limit and the retention are the calling gate's policy's, taken
 * when the result is prepared.
 */
final class ResultWriter {
  private final ResultCodec codec;
  private final Events events;

  ResultWriter(ResultCodec codec, Events events) {
    this.codec = codec;
    this.events = events;
  }

  /**
   * A result ready to write: encoded by the codec and checked against the size limit, with no write
   * made yet (so that the slow part, a codec that calls a key service, say, runs while the lease is
   * still renewed).
   *
   * @param result the result to store, or null when it is too large
   * @param tooLarge why it is not stored, or null
   * @param retention how long the store keeps the row once written (the policy's)
   */
  record Prepared(StoredResult result, ResultTooLargeException tooLarge, Duration retention) {}

  /** Encodes and checks a result against {@code policy}'s limit; writes nothing. */
  Prepared prepare(GatePolicy policy, ClaimId id, byte[] plain, boolean failure) {
    byte[] encoded = codec.encode(id, plain);
    if (encoded.length > policy.maxResultBytes()) {
      return new Prepared(
          null,
          new ResultTooLargeException(
              "the result of "
                  + id
                  + " is "
                  + encoded.length
                  + " bytes, over the limit of "
                  + policy.maxResultBytes()
                  + " bytes; it was not stored, and the key stays claimed: retries are refused, not"
                  + " run again",
              encoded.length,
              policy.maxResultBytes()),
          policy.retention());
    }
    return new Prepared(
        new StoredResult(failure ? StoredResult.Kind.FAILURE : StoredResult.Kind.VALUE, encoded),
        null,
        policy.retention());
  }

  /**
   * @return false when the lease was lost: nothing was stored
   * @throws CallFailure (result too large) after fencing the key (and committing the scope)
   */
  <R> boolean store(
      GatePolicy policy,
      TransactionScope<R> scope,
      R resource,
      ClaimOutcome.Acquired claim,
      byte[] plain,
      boolean failure) {
    return store(scope, resource, claim, prepare(policy, claim.id(), plain, failure));
  }

  /**
   * @return false when the lease was lost: nothing was stored
   * @throws CallFailure (result too large) after fencing the key (and committing the scope)
   */
  <R> boolean store(
      TransactionScope<R> scope, R resource, ClaimOutcome.Acquired claim, Prepared prepared) {
    boolean stored =
        write(
            scope,
            resource,
            claim,
            prepared,
            result ->
                scope.complete(resource, claim.id(), claim.token(), result, prepared.retention()));
    if (!stored) {
      events.emit(
          GateEvent.Type.LEASE_LOST,
          claim,
          "the lease had been taken over by another attempt; this result was not stored",
          null);
    }
    return stored;
  }

  /**
   * Stores the result and commits, through {@link ClaimingScope#completeAndCommit} (single-commit
   * mode: the completion may travel with the {@code COMMIT}).
   *
   * @return false when the completion found no row of this attempt: nothing was committed
   * @throws CallFailure (result too large) after fencing the key (and committing the scope)
   * @throws dev.mcpgate.core.CommitOutcomeUnknownException when the commit's answer was lost
   */
  <R> boolean storeAndCommit(
      ClaimingScope<R> scope, R resource, ClaimOutcome.Acquired claim, Prepared prepared) {
    return write(
        scope,
        resource,
        claim,
        prepared,
        result ->
            scope.completeAndCommit(
                resource, claim.id(), claim.token(), result, prepared.retention()));
  }

  /** How a prepared result is written: the completion, or the completion with the commit. */
  private interface Completion {
    boolean write(StoredResult result);
  }

  /** Fences a result too large, else writes it and tells the listeners once it is stored. */
  private <R> boolean write(
      TransactionScope<R> scope,
      R resource,
      ClaimOutcome.Acquired claim,
      Prepared prepared,
      Completion completion) {
    if (prepared.tooLarge() != null) {
      throw fence(scope, resource, claim, prepared, prepared.tooLarge());
    }
    StoredResult result = prepared.result();
    boolean stored;
    try {
      stored = completion.write(result);
    } catch (ResultTooLargeException storeLimit) {
      throw fence(scope, resource, claim, prepared, storeLimit);
    }
    if (stored) {
      events.emit(
          GateEvent.Type.COMPLETED,
          claim,
          "result stored (" + result.body().length + " bytes)",
          null);
    }
    return stored;
  }

  /**
   * Marks the key as "ran, result not stored", commits that, and returns the exception to throw.
   */
  private <R> CallFailure fence(
      TransactionScope<R> scope,
      R resource,
      ClaimOutcome.Acquired claim,
      Prepared prepared,
      ResultTooLargeException tooLarge) {
    boolean marked =
        scope.complete(
            resource, claim.id(), claim.token(), StoredResult.notStored(), prepared.retention());
    if (!marked && !(scope instanceof DirectScope)) {
      // the lease was taken over: this attempt's unit of work must not commit
      scope.rollback(resource);
      events.emit(
          GateEvent.Type.LEASE_LOST,
          claim,
          "result too large to store, and the lease had been taken over; rolled back",
          tooLarge);
      CallFailure lost =
          CommitResolver.leaseLost(
              claim,
              "the lease of "
                  + claim.id()
                  + " (attempt "
                  + claim.attempt()
                  + ") was taken over by another attempt, and its result was too large to store"
                  + " anyway; this attempt's transaction was rolled back: none of its writes took"
                  + " effect",
              tooLarge);
      throw lost;
    }
    try {
      scope.commit(resource);
    } catch (RuntimeException commitFailed) {
      if (scope instanceof DirectScope) {
        throw commitFailed;
      }
      commitFailed.addSuppressed(tooLarge);
      events.emit(
          GateEvent.Type.STORE_FAILED,
          claim,
          "the result was too large to store, and"
              + " the commit of the not-stored marker failed: whether it took effect is not known",
          commitFailed);
      throw CommitResolver.commitUnknown(
          claim,
          "the result of "
              + claim.id()
              + " was too large to store, and the commit of its not-stored marker (with the"
              + " action's writes) failed: whether it took effect is not known; the key stays"
              + " claimed until its lease expires, and a retry with the same key then finds out",
          commitFailed);
    }
    if (marked) {
      events.emit(
          GateEvent.Type.RESULT_NOT_STORED,
          claim,
          "result too large to store; the key is fenced as not stored",
          tooLarge);
    } else {
      events.emit(
          GateEvent.Type.LEASE_LOST,
          claim,
          "result too large to store, and the lease had been taken over",
          tooLarge);
    }
    return new CallFailure(
        FailureReason.RESULT_TOO_LARGE,
        GateResult.Effect.YES,
        false,
        claim,
        tooLarge.getMessage(),
        tooLarge);
  }
}
