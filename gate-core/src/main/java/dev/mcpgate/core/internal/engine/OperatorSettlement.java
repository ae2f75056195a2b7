package dev.mcpgate.core.internal.engine;

import dev.mcpgate.core.ClaimId;
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
import dev.mcpgate.core.spi.Takeover;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;

/**
 * An operator's settlement of a key whose outcome is unknown (the facade's {@code resolveUnknown}):
 * a row fenced as unknown is completed or released by its token; a row still in progress whose
 * lease ran out on the store's clock is first taken over, by a claim that replaces only the token
 * read, and fenced ({@link #takeOver}). Whatever changed since the read wins: the verdict was about
 * the attempt read, and any doubt leaves the key fenced, never free.
 */
final class OperatorSettlement {
  private final IdempotencyStore store;
  private final ResultCodec codec;
  private final Events events;

  OperatorSettlement(IdempotencyStore store, ResultCodec codec, Events events) {
    this.store = store;
    this.codec = codec;
    this.events = events;
  }

  /**
   * @param verdict happened or not happened (the caller refused still unknown)
   * @return false when there is no row whose outcome is unknown at {@code id}, or the row changed
   *     since it was read (nothing is then written: settle it again from what it holds now)
   */
  boolean resolve(GatePolicy policy, ClaimId id, Reconciler.Verdict verdict) {
    if (verdict instanceof Reconciler.Verdict.StillUnknown) {
      throw new IllegalArgumentException(
          "verdict must be happened or notHappened to settle " + id + ", was stillUnknown");
    }
    Instant readAt;
    Optional<ClaimRecord> found;
    try {
      readAt = store.now();
      found = store.find(id);
    } catch (RuntimeException e) {
      throw new StoreUnavailableException("could not read " + id, e);
    }
    ClaimRecord read = found.orElse(null);
    if (read != null && !read.id().equals(id)) {
      throw new StoreUnavailableException(
          "the store answered the read of "
              + id
              + " with the row of "
              + read.id()
              + ": its table or connection does not keep tenant, tool and key as sent; nothing"
              + " was settled (docs/stores.md)",
          null);
    }
    boolean fenced = read != null && countsAs(read) == ClaimState.UNKNOWN;
    if (read == null
        || !(fenced
            || read.state() == ClaimState.IN_PROGRESS && !read.leaseExpiresAt().isAfter(readAt))) {
      return false;
    }
    StoredResult result =
        verdict instanceof Reconciler.Verdict.Happened happened
            ? encode(policy, id, happened.result())
            : null;
    // the settling gate's policy may not be the tool's: keep at least what the row promised
    Duration remaining = Duration.between(readAt, read.expiresAt());
    Duration retention =
        remaining.compareTo(policy.retention()) > 0 ? remaining : policy.retention();
    ClaimRecord row = fenced ? read : takeOver(policy, read, retention);
    if (row == null) {
      return false;
    }
    // a row taken over holds the settlement's own token: a verdict write refused or unanswered is
    // read back; another settlement, or a call's reconciler, may have written by that token too
    // (a row held by a settlement's token is settled by it), so a completion is its own only with
    // its own result
    LeaseToken own = row == read ? null : row.token();
    if (result != null) {
      boolean completed =
          write(
              () -> store.complete(id, row.token(), result, retention),
              id,
              own,
              r ->
                  r.isPresent()
                      && r.get().state() == ClaimState.COMPLETED
                      && result.equals(r.get().result()));
      if (completed) {
        events.emit(
            GateEvent.Type.COMPLETED,
            row,
            "settled by an operator: the effect happened; its result is stored",
            null);
      }
      return completed;
    }
    boolean released = write(() -> store.release(id, row.token()), id, own, Optional::isEmpty);
    if (released) {
      events.emit(
          GateEvent.Type.RELEASED,
          row,
          "settled by an operator: the effect did not happen; the fence is lifted",
          null);
    }
    return released;
  }

  private StoredResult encode(GatePolicy policy, ClaimId id, byte[] value) {
    byte[] encoded = codec.encode(id, value);
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
    return new StoredResult(StoredResult.Kind.VALUE, encoded);
  }

  /**
   * An in-progress row whose lease ran out may still have a live holder, paused past its lease,
   * that renews between the read and a write by its token (a renewal keeps the token): so it is
   * taken over, as a retry would take it, by a claim {@linkplain ClaimRequest#replacing replacing}
   * the token read (the store's one atomic write: only that row, only with its lease run out),
   * under a lease as long as the unknown-outcome fence (kept at least {@code retention}) and a
   * token of the settlement's own ({@link LeaseToken#settlement()}), so that the key stays fenced
   * if the settlement stops here and the next settlement settles it; then it is fenced as unknown
   * under the new token. A write the store does not confirm is read back before anything is told.
   * Nothing is settled (null) when the claim finds no row, or a row other than the one read (a live
   * lease, a completion, a fence, another attempt's claim): what happened since wins.
   */
  private ClaimRecord takeOver(GatePolicy policy, ClaimRecord read, Duration retention) {
    ClaimId id = read.id();
    LeaseToken token = LeaseToken.settlement();
    Duration fence = policy.unknownFence();
    ClaimRecord row;
    try {
      ClaimAttempt taken =
          store.claim(
              new ClaimRequest(
                  id,
                  read.argsHash(),
                  token,
                  fence,
                  fence.compareTo(retention) > 0 ? fence : retention,
                  read.token()));
      if (!(taken instanceof ClaimAttempt.Acquired acquired)) {
        return null;
      }
      row = acquired.record();
    } catch (RuntimeException e) {
      Optional<ClaimRecord> now = readBack(id, token, e);
      if (now == null || now.isEmpty()) {
        throw unconfirmed(
            id,
            now != null,
            "the store did not confirm its takeover, and no row holds it now: it was not"
                + " written, or it was and another settlement or a call's reconciler settled it"
                + " since; this settlement wrote nothing that stays",
            "the store did not confirm its takeover: if it was written, the key stays claimed,"
                + " and a call with it is refused as an unknown outcome (unless the policy's"
                + " reconciler settles it), for "
                + fence
                + " from then, unless you settle it again",
            e);
      }
      row = now.get();
    }
    if (row.attempt() != read.attempt() + 1
        && !(row.attempt() == 1 && Takeover.expired(read, row.createdAt()))) {
      throw notReplacing(read, row, token, fence);
    }
    if (row.state() != ClaimState.UNKNOWN && !fence(row, token, fence, read.attempt())) {
      return null;
    }
    events.emit(
        GateEvent.Type.MARKED_UNKNOWN,
        row,
        "taken over from attempt "
            + read.attempt()
            + " by an operator's settlement, its lease having run out; key fenced",
        null);
    return row;
  }

  /**
   * @return the state {@code row} is settled and decided as: {@link ClaimState#UNKNOWN} for an
   *     in-progress row held by a settlement's own token ({@link LeaseToken#isSettlement()}): no
   *     action runs under it, so it is fenced; its own state else
   */
  static ClaimState countsAs(ClaimRecord row) {
    return row.state() == ClaimState.IN_PROGRESS && row.token().isSettlement()
        ? ClaimState.UNKNOWN
        : row.state();
  }

  /**
   * @return false when the store refused the fence of its own takeover (the row is no longer the
   *     takeover's)
   */
  private boolean fence(ClaimRecord row, LeaseToken token, Duration fence, int from) {
    try {
      return store.markUnknown(row.id(), token, fence)
          || store
              .find(row.id()) // refused: a fence of ours whose answer was lost, sent again?
              .filter(r -> r.token().equals(token) && r.state() == ClaimState.UNKNOWN)
              .isPresent();
    } catch (RuntimeException e) {
      Optional<ClaimRecord> now = readBack(row.id(), token, e);
      if (now != null && now.isPresent() && now.get().state() == ClaimState.UNKNOWN) {
        return true;
      }
      if (now != null && (now.isEmpty() || now.get().state() == ClaimState.COMPLETED)) {
        return false; // released or completed by its token since: by another settlement or a call
      }
      throw unconfirmed(
          row.id(),
          now != null,
          "it was taken over from attempt "
              + from
              + " but not fenced as unknown; it stays claimed, and a call with it is refused as"
              + " an unknown outcome (unless the policy's reconciler settles it), until "
              + row.leaseExpiresAt()
              + " (store clock) unless you settle it again; the earlier attempt, if alive, is told"
              + " its lease was lost",
          "it was taken over from attempt "
              + from
              + " and the store did not confirm its fence as unknown; it stays claimed either"
              + " way, and a call with it is refused, until "
              + row.leaseExpiresAt()
              + " (store clock) unless you settle it again; the earlier attempt, if alive, is told"
              + " its lease was lost",
          e);
    }
  }

  /**
   * A store that wrote the takeover over another row than the one read does not honour {@link
   * ClaimRequest#replacing} (it fails the store contract): its claim is undone as far as it can be
   * (a row written where there was none is released, nothing having run under it; another attempt's
   * row taken over is fenced as unknown), and nothing is settled.
   */
  private IllegalStateException notReplacing(
      ClaimRecord read, ClaimRecord row, LeaseToken token, Duration fence) {
    boolean fresh = row.attempt() == 1;
    String left;
    try {
      left =
          fresh
              ? store.release(row.id(), token) ? "released" : "not released"
              : store.markUnknown(row.id(), token, fence)
                  ? "fenced as unknown"
                  : "not fenced as unknown";
    } catch (RuntimeException e) {
      left = "not confirmed as undone (" + e + ")";
    }
    return new IllegalStateException(
        store.getClass().getName()
            + " does not honour ClaimRequest.replacing (run the store contract, gate-store-tck):"
            + " asked to take over only the row of attempt "
            + read.attempt()
            + " of "
            + read.id()
            + ", it wrote attempt "
            + row.attempt()
            + (fresh ? " where that row was gone" : " over another attempt's row")
            + "; that claim was "
            + left
            + ", and nothing was settled");
  }

  /**
   * @return the row at {@code id} if it holds {@code token}, empty if it does not (or is gone), or
   *     null when it could not be read either (then the cause carries that failure too)
   */
  private Optional<ClaimRecord> readBack(ClaimId id, LeaseToken token, RuntimeException cause) {
    try {
      return store.find(id).filter(r -> r.token().equals(token));
    } catch (RuntimeException e) {
      cause.addSuppressed(e);
      return null;
    }
  }

  /**
   * @param readBack whether the row could be read back after the write the store did not confirm:
   *     then {@code known} holds, else only {@code unknown}
   */
  private static StoreUnavailableException unconfirmed(
      ClaimId id, boolean readBack, String known, String unknown, RuntimeException cause) {
    return new StoreUnavailableException(
        "could not settle " + id + ": " + (readBack ? known : unknown), cause);
  }

  /**
   * @param own the settlement's own token, whose write is read back when refused or unanswered (the
   *     row by that token, or empty, tells {@code landed}); null for a row settled by its holder's
   *     token, which another settlement may use too
   */
  private boolean write(
      BooleanSupplier write, ClaimId id, LeaseToken own, Predicate<Optional<ClaimRecord>> landed) {
    try {
      if (write.getAsBoolean()) {
        return true;
      }
    } catch (RuntimeException e) {
      Optional<ClaimRecord> now = own == null ? null : readBack(id, own, e);
      if (now != null && landed.test(now)) {
        return true;
      }
      throw e instanceof IdempotencyException known
          ? known
          : new StoreUnavailableException("could not settle " + id, e);
    }
    // refused: a write of its own sent again after its reply was lost finds it done
    return own != null && landed.test(store.find(id).filter(r -> r.token().equals(own)));
  }
}
