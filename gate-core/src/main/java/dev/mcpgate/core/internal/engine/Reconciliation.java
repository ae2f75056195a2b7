package dev.mcpgate.core.internal.engine;

import dev.mcpgate.core.ClaimId;
import dev.mcpgate.core.ClaimOutcome;
import dev.mcpgate.core.DownstreamKey;
import dev.mcpgate.core.GateEvent;
import dev.mcpgate.core.GatePolicy;
import dev.mcpgate.core.Reconciler;
import dev.mcpgate.core.ResultCodec;
import dev.mcpgate.core.spi.ClaimRecord;
import dev.mcpgate.core.spi.ClaimState;
import dev.mcpgate.core.spi.IdempotencyStore;
import dev.mcpgate.core.spi.StoredResult;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Asks the policy's {@link Reconciler} about a row whose outcome is unknown. On "happened" the
 * result is stored with the row's own token (so only the row that was read can change) and
 * replayed; on "did not happen" the fence is lifted with that token and the call claims again.
 * Anything else, or any failure, leaves the outcome unknown.
 */
final class Reconciliation {
  private static final Logger LOG = LoggerFactory.getLogger(Events.LOGGER);
  private static final int MAX_ROUNDS = 3;

  private final IdempotencyStore store;
  private final ResultCodec codec;
  private final Events events;

  Reconciliation(IdempotencyStore store, ResultCodec codec, Events events) {
    this.store = store;
    this.codec = codec;
    this.events = events;
  }

  /**
   * @param policy the calling gate's: its reconciler, result limit and retention
   * @param rounds how often this call reconciled already
   * @param claimAgain claims the call anew, for when the row changed or the fence was lifted
   * @return the outcome, or null to refuse the call as unknown
   */
  ClaimOutcome reconcile(
      GatePolicy policy,
      ClaimId id,
      ClaimRecord row,
      int rounds,
      Supplier<ClaimOutcome> claimAgain) {
    Reconciler reconciler = policy.reconciler();
    if (reconciler == null || rounds >= MAX_ROUNDS) {
      return null;
    }
    Reconciler.Verdict verdict;
    try {
      verdict = reconciler.reconcile(id, DownstreamKey.of(id));
    } catch (Exception e) {
      LOG.warn("reconciler failed for {}; the outcome stays unknown", id, e);
      return null;
    }
    try {
      return apply(policy, id, row, verdict, claimAgain);
    } catch (CallFailure failure) {
      throw failure; // claiming again failed: what it says is true, whatever the fence was
    } catch (RuntimeException e) {
      LOG.warn("could not apply the reconciler's verdict for {}; the outcome stays unknown", id, e);
      return null;
    }
  }

  private ClaimOutcome apply(
      GatePolicy policy,
      ClaimId id,
      ClaimRecord row,
      Reconciler.Verdict verdict,
      Supplier<ClaimOutcome> claimAgain) {
    if (verdict instanceof Reconciler.Verdict.Happened happened) {
      byte[] encoded = codec.encode(id, happened.result());
      if (encoded.length > policy.maxResultBytes()) {
        LOG.warn(
            "the reconciled result of {} is {} bytes, over the limit; the outcome stays"
                + " unknown",
            id,
            encoded.length);
        return null;
      }
      if (!store.complete(
          id,
          row.token(),
          new StoredResult(StoredResult.Kind.VALUE, encoded),
          policy.retention())) {
        LOG.debug("reconciled {}, but the row changed meanwhile; claiming again", id);
        return claimAgain.get();
      }
      events.emit(
          GateEvent.Type.COMPLETED,
          row,
          "reconciled: the effect happened; its result is stored",
          null);
      // replayed with the times the store wrote, as every later call finds them; read back
      ClaimRecord done;
      try {
        done = store.find(id).orElse(null);
      } catch (RuntimeException e) {
        return claimAgain.get(); // unread: claimed again, which replays it or says why not
      }
      if (done == null
          || !done.token().equals(row.token())
          || done.state() != ClaimState.COMPLETED) {
        return claimAgain.get(); // changed since it was stored
      }
      return new ClaimOutcome.Replayed(
          id,
          new StoredResult(StoredResult.Kind.VALUE, happened.result()),
          done.attempt(),
          done.createdAt(),
          done.completedAt(),
          done.token().isSettlement());
    }
    if (verdict instanceof Reconciler.Verdict.NotHappened) {
      if (store.release(id, row.token())) {
        events.emit(
            GateEvent.Type.RELEASED,
            row,
            "reconciled: the effect did not happen; the fence is lifted",
            null);
      } else {
        LOG.debug("reconciled {} as not happened, but the row changed meanwhile", id);
      }
      return claimAgain.get();
    }
    return null;
  }
}
