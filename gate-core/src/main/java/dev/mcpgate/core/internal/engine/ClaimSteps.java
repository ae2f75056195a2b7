package dev.mcpgate.core.internal.engine;

import dev.mcpgate.core.ClaimId;
import dev.mcpgate.core.ClaimOutcome;
import dev.mcpgate.core.GateEvent;
import dev.mcpgate.core.GatePolicy;
import dev.mcpgate.core.IdempotencyException;
import dev.mcpgate.core.LeaseToken;
import dev.mcpgate.core.Reconciler;
import dev.mcpgate.core.ResultCodec;
import dev.mcpgate.core.ResultTooLargeException;
import dev.mcpgate.core.StoreUnavailableException;
import dev.mcpgate.core.spi.ClaimAttempt;
import dev.mcpgate.core.spi.ClaimRecord;
import dev.mcpgate.core.spi.ClaimRequest;
import dev.mcpgate.core.spi.ClaimState;
import dev.mcpgate.core.spi.IdempotencyStore;
import dev.mcpgate.core.spi.StoredResult;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.function.BooleanSupplier;

/**
 * The token-checked steps after a claim, for callers that drive them one by one (complete, release,
 * extend the lease, mark unknown) and for an operator who settles an unknown outcome. Each write is
 * conditional on the claim's lease token, so an attempt whose lease was taken over changes nothing;
 * a store that throws is reported as {@link StoreUnavailableException}. A running action that
 * extends its lease does it through here too. The steps that need a policy take the calling gate's.
 */
final class ClaimSteps {
  private final IdempotencyStore store;
  private final ResultCodec codec;
  private final Events events;
  private final ResultWriter writer;
  private final DirectScope direct;

  ClaimSteps(
      IdempotencyStore store,
      ResultCodec codec,
      Events events,
      ResultWriter writer,
      DirectScope direct) {
    this.store = store;
    this.codec = codec;
    this.events = events;
    this.writer = writer;
    this.direct = direct;
  }

  /**
   * @return false when another attempt took the lease over: nothing was stored
   */
  boolean complete(GatePolicy policy, ClaimOutcome.Acquired claim, byte[] result, boolean failure) {
    try {
      return writer.store(policy, direct, DirectScope.RESOURCE, claim, result, failure);
    } catch (CallFailure e) {
      throw e.toException(); // a result too large: the key was fenced as not stored
    } catch (IdempotencyException e) {
      throw e;
    } catch (RuntimeException e) {
      events.emit(GateEvent.Type.STORE_FAILED, claim, "the result could not be stored", e);
      throw new StoreUnavailableException("could not store the result of " + claim.id(), e);
    }
  }

  /**
   * @return false when another attempt took the lease over: nothing was deleted
   */
  boolean release(ClaimOutcome.Acquired claim) {
    boolean released = write(() -> store.release(claim.id(), claim.token()), claim, "release");
    events.emit(
        released ? GateEvent.Type.RELEASED : GateEvent.Type.LEASE_LOST,
        claim,
        released ? "claim released" : "release refused: lease taken over",
        null);
    return released;
  }

  /**
   * @param lease the new lease from the store's now, checked by the caller
   * @return false when another attempt took the lease over
   */
  boolean extendLease(ClaimOutcome.Acquired claim, Duration lease) {
    boolean extended =
        write(() -> store.extendLease(claim.id(), claim.token(), lease), claim, "extend");
    if (!extended) {
      events.emit(
          GateEvent.Type.LEASE_LOST,
          claim,
          "lease extension refused: the lease was taken over",
          null);
    }
    return extended;
  }

  /**
   * @return false when another attempt took the lease over
   */
  boolean markUnknown(GatePolicy policy, ClaimOutcome.Acquired claim) {
    boolean marked =
        write(
            () -> store.markUnknown(claim.id(), claim.token(), policy.unknownFence()),
            claim,
            "mark unknown");
    events.emit(
        marked ? GateEvent.Type.MARKED_UNKNOWN : GateEvent.Type.LEASE_LOST,
        claim,
        marked ? "outcome unknown; key fenced" : "lease taken over",
        null);
    return marked;
  }

  /**
   * Settles the row at {@code id} whose outcome is unknown by an operator's verdict: a row fenced
   * as unknown (written by its token), or one still in progress whose lease has run out on the
   * store's clock (its attempt's process died, or its gate closed before the fence could be
   * written), which a retry would otherwise take over and run again: that one is taken over first
   * ({@link #fenceToSettle}).
   *
   * @param verdict happened or not happened (the caller refused still unknown)
   * @return false when there is no such row at {@code id}
   */
  boolean resolveUnknown(GatePolicy policy, ClaimId id, Reconciler.Verdict verdict) {
    Optional<ClaimRecord> found;
    Instant now;
    try {
      found = store.find(id);
      now = store.now();
    } catch (RuntimeException e) {
      throw new StoreUnavailableException("could not read " + id, e);
    }
    if (found.isEmpty()
        || !(found.get().state() == ClaimState.UNKNOWN
            || found.get().state() == ClaimState.IN_PROGRESS
                && !found.get().leaseExpiresAt().isAfter(now))) {
      return false;
    }
    StoredResult result = null;
    if (verdict instanceof Reconciler.Verdict.Happened happened) {
      byte[] encoded = codec.encode(id, happened.result());
      if (encoded.length > policy.maxResultBytes()) {
        throw new ResultTooLargeException(
            "the result given for "
                + id
                + " is "
                + encoded.length
                + " bytes, over the limit of "
                + policy.maxResultBytes()
                + " bytes; nothing was written",
            encoded.length,
            policy.maxResultBytes());
      }
      result = new StoredResult(StoredResult.Kind.VALUE, encoded);
    }
    ClaimRecord row =
        found.get().state() == ClaimState.IN_PROGRESS
            ? fenceToSettle(policy, found.get())
            : found.get();
    if (row == null) {
      return false;
    }
    ClaimOutcome.Acquired holder =
        new ClaimOutcome.Acquired(
            id, row.token(), row.attempt(), row.createdAt(), row.leaseExpiresAt(), row.argsHash());
    if (result != null) {
      StoredResult stored = result;
      boolean completed =
          write(
              () -> store.complete(id, row.token(), stored, policy.retention()), holder, "settle");
      if (completed) {
        events.emit(
            GateEvent.Type.COMPLETED,
            row,
            "settled by an operator: the effect happened; its result is stored",
            null);
      }
      return completed;
    }
    boolean released = write(() -> store.release(id, row.token()), holder, "settle");
    if (released) {
      events.emit(
          GateEvent.Type.RELEASED,
          row,
          "settled by an operator: the effect did not happen; the fence is lifted",
          null);
    }
    return released;
  }

  /**
   * An in-progress row whose lease ran out may still have a live holder, paused past its lease,
   * that renews between the read and a write by its token (a renewal keeps the token): so it is
   * taken over, as a retry would take it (the store's claim, atomic on the lease having run out;
   * the attempt counts up), under a lease as long as the unknown-outcome fence, so that the key
   * stays fenced if the settlement stops here (a store failure, a crash): a retry is then refused
   * in progress until that lease ends, never run. Then it is fenced as unknown under the new token.
   * A claim that finds no row to take over (the holder released it, a purge removed it) wrote a
   * fresh one, which is released again: there was nothing to settle. A row that another attempt
   * took over after the read, and whose lease ran out too, stays fenced as unknown: the verdict was
   * about the attempt read, not that one.
   *
   * @return the fenced row, or null when the row changed since it was read (a renewal, a retry, a
   *     release)
   */
  private ClaimRecord fenceToSettle(GatePolicy policy, ClaimRecord read) {
    LeaseToken token = LeaseToken.random();
    Duration fence = policy.unknownFence();
    ClaimRequest request =
        new ClaimRequest(
            read.id(),
            read.argsHash(),
            token,
            fence,
            fence.compareTo(policy.retention()) > 0 ? fence : policy.retention());
    ClaimAttempt taken;
    try {
      taken = store.claim(request);
    } catch (IdempotencyException e) {
      throw e;
    } catch (RuntimeException e) {
      throw new StoreUnavailableException("could not settle " + read.id(), e);
    }
    if (!(taken instanceof ClaimAttempt.Acquired acquired)) {
      ClaimRecord now = taken.record();
      // the holder fenced its own row as unknown since the read: the same attempt, settled by
      // that token as any unknown row is
      return now.state() == ClaimState.UNKNOWN && now.attempt() == read.attempt() ? now : null;
    }
    ClaimRecord row = acquired.record();
    ClaimOutcome.Acquired claim =
        new ClaimOutcome.Acquired(
            row.id(), token, row.attempt(), row.createdAt(), row.leaseExpiresAt(), row.argsHash());
    if (!row.isTakeover()) { // a fresh row: the one read is gone, and nothing ran under this one
      try {
        store.release(row.id(), token);
      } catch (RuntimeException e) { // a store's own StoreUnavailableException too: this says more
        throw new StoreUnavailableException(
            "could not settle "
                + row.id()
                + ": its row was gone, and the claim made in its place could not be released; the"
                + " key stays claimed, and a call with it is refused as in progress, until "
                + row.leaseExpiresAt()
                + " (store clock); nothing ran under that claim",
            e);
      }
      return null;
    }
    boolean fenced;
    try {
      fenced = store.markUnknown(row.id(), token, fence);
    } catch (RuntimeException e) { // a store's own StoreUnavailableException too: this says more
      throw new StoreUnavailableException(
          "could not settle "
              + row.id()
              + ": it was taken over from attempt "
              + read.attempt()
              + " but could not be fenced as unknown; it stays claimed, and a retry is refused"
              + " as in progress, until "
              + row.leaseExpiresAt()
              + " (store clock); the earlier attempt, if alive, is told its lease was lost",
          e);
    }
    if (!fenced) {
      return null;
    }
    // the attempt after the one read, or another took the row over since and its lease ran out
    // too: the verdict was about the attempt read, so that row stays fenced for its own settlement
    boolean theOneRead = row.attempt() == read.attempt() + 1;
    events.emit(
        GateEvent.Type.MARKED_UNKNOWN,
        claim,
        theOneRead
            ? "taken over from attempt "
                + read.attempt()
                + " by an operator's settlement, its lease having run out; key fenced"
            : "taken over by an operator's settlement of attempt "
                + read.attempt()
                + ", but attempt "
                + (row.attempt() - 1)
                + " had claimed it since and its outcome is unknown too; key fenced, not settled",
        null);
    return theOneRead ? row : null;
  }

  private static boolean write(BooleanSupplier write, ClaimOutcome.Acquired claim, String what) {
    try {
      return write.getAsBoolean();
    } catch (IdempotencyException e) {
      throw e;
    } catch (RuntimeException e) {
      throw new StoreUnavailableException("could not " + what + " " + claim.id(), e);
    }
  }
}
