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
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.function.BooleanSupplier;

/**
 * An operator's settlement of a key whose outcome is unknown (the facade's {@code resolveUnknown}):
 * a row fenced as unknown is completed or released by its token; a row still in progress whose
 * lease ran out on the store's clock is first taken over and fenced ({@link #takeOver}). Whatever
 * changed since the read wins: the verdict was about the attempt read, and any doubt leaves the key
 * fenced, never free.
 */
final class OperatorSettlement {
  /**
   * A takeover this long after the read, or longer, may have found a row claimed since (a claim's
   * lease has to run out before it is taken over): the attempt numbers alone cannot tell it apart.
   * A claim under a shorter lease than this (or than the settling policy's, if shorter) that starts
   * and lapses between the read and the takeover is the known limit; the store's claim does not say
   * which token it replaced.
   */
  private static final Duration SAME_ROW_WITHIN = Duration.ofMillis(250);

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
   * @return false when there is no row whose outcome is unknown at {@code id}, or the row may have
   *     changed since it was read (it is then fenced as unknown, for a settlement of its own)
   */
  boolean resolve(GatePolicy policy, ClaimId id, Reconciler.Verdict verdict) {
    Instant readAt;
    Optional<ClaimRecord> found;
    try {
      readAt = store.now(); // before the read: the takeover is timed from it
      found = store.find(id);
    } catch (RuntimeException e) {
      throw new StoreUnavailableException("could not read " + id, e);
    }
    ClaimRecord read = found.orElse(null);
    if (read == null
        || !(read.state() == ClaimState.UNKNOWN
            || read.state() == ClaimState.IN_PROGRESS && !read.leaseExpiresAt().isAfter(readAt))) {
      return false;
    }
    StoredResult result =
        verdict instanceof Reconciler.Verdict.Happened happened
            ? encode(policy, id, happened.result())
            : null;
    ClaimRecord row =
        read.state() == ClaimState.IN_PROGRESS ? takeOver(policy, read, readAt) : read;
    if (row == null) {
      return false;
    }
    if (result != null) {
      boolean completed =
          write(() -> store.complete(id, row.token(), result, policy.retention()), id);
      if (completed) {
        events.emit(
            GateEvent.Type.COMPLETED,
            row,
            "settled by an operator: the effect happened; its result is stored",
            null);
      }
      return completed;
    }
    boolean released = write(() -> store.release(id, row.token()), id);
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
   * taken over, as a retry would take it (the store's claim, atomic on the lease having run out),
   * under a lease as long as the unknown-outcome fence, so that the key stays fenced if the
   * settlement stops here; then it is fenced as unknown under the new token. A write the store does
   * not confirm is read back before anything is told. Nothing is settled (null) when:
   *
   * <ul>
   *   <li>the claim finds a live lease, a completion or a fence: what happened since wins;
   *   <li>the claim wrote a fresh row (the one read was released or purged): it is released again;
   *   <li>the takeover is not the attempt after the one read, or came {@link #SAME_ROW_WITHIN} or
   *       more from the read (on the store's clocks): another attempt may have claimed the key
   *       meanwhile, so the row stays fenced as unknown, for a settlement of its own.
   * </ul>
   */
  private ClaimRecord takeOver(GatePolicy policy, ClaimRecord read, Instant readAt) {
    ClaimId id = read.id();
    LeaseToken token = LeaseToken.random();
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
                  fence.compareTo(policy.retention()) > 0 ? fence : policy.retention()));
      row = taken instanceof ClaimAttempt.Acquired acquired ? acquired.record() : null;
      if (row == null) {
        return null;
      }
    } catch (RuntimeException e) {
      Optional<ClaimRecord> now = readBack(id, token, e);
      if (now == null || now.isEmpty()) {
        throw unconfirmed(
            id,
            now != null,
            "the store did not confirm its takeover, which was not written; nothing changed",
            "the store did not confirm its takeover: if it was written, the key stays claimed,"
                + " and a call with it is refused as in progress, for "
                + fence
                + " from then",
            e);
      }
      row = now.get();
    }
    if (!row.isTakeover()) { // a fresh row: the one read is gone, and nothing ran under this one
      releaseFresh(row, token);
      return null;
    }
    if (row.state() != ClaimState.UNKNOWN && !fence(row, token, fence)) {
      return null;
    }
    Duration window =
        policy.lease().compareTo(SAME_ROW_WITHIN) < 0 ? policy.lease() : SAME_ROW_WITHIN;
    // both ways: a store whose clock for now() runs ahead of its claims' (two Redis Cluster
    // nodes) must not make a late takeover look early
    boolean theOneRead =
        row.attempt() == read.attempt() + 1
            && Duration.between(readAt, row.createdAt()).abs().compareTo(window) < 0;
    events.emit(
        GateEvent.Type.MARKED_UNKNOWN,
        row,
        theOneRead
            ? "taken over from attempt "
                + read.attempt()
                + " by an operator's settlement, its lease having run out; key fenced"
            : "taken over (attempt "
                + row.attempt()
                + ") by an operator's settlement of attempt "
                + read.attempt()
                + ", but another attempt may have claimed it since the read, and its outcome is"
                + " unknown too; key fenced, not settled",
        null);
    return theOneRead ? row : null;
  }

  private void releaseFresh(ClaimRecord row, LeaseToken token) {
    try {
      store.release(row.id(), token);
    } catch (RuntimeException e) {
      Optional<ClaimRecord> now = readBack(row.id(), token, e);
      if (now == null || now.isPresent()) {
        throw unconfirmed(
            row.id(),
            now != null,
            "its row was gone, and the claim made in its place could not be released: the key"
                + " stays claimed, and a call with it is refused as in progress, until "
                + row.leaseExpiresAt()
                + " (store clock); nothing ran under that claim",
            "its row was gone, and the store did not confirm the release of the claim made in"
                + " its place: unless it was released, the key stays claimed, and a call with it is"
                + " refused as in progress, until "
                + row.leaseExpiresAt()
                + " (store clock); nothing ran under that claim",
            e);
      }
    }
  }

  /**
   * @return false when the store refused the fence of its own takeover (the row is no longer the
   *     takeover's)
   */
  private boolean fence(ClaimRecord row, LeaseToken token, Duration fence) {
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
      if (now != null && now.isEmpty()) {
        return false;
      }
      throw unconfirmed(
          row.id(),
          now != null,
          "it was taken over from attempt "
              + (row.attempt() - 1)
              + " but not fenced as unknown; it stays claimed, and a call with it is refused as"
              + " in progress, until "
              + row.leaseExpiresAt()
              + " (store clock); the earlier attempt, if alive, is told its lease was lost",
          "it was taken over from attempt "
              + (row.attempt() - 1)
              + " and the store did not confirm its fence as unknown; it stays claimed either"
              + " way, and a call with it is refused, until "
              + row.leaseExpiresAt()
              + " (store clock); the earlier attempt, if alive, is told its lease was lost",
          e);
    }
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

  private static boolean write(BooleanSupplier write, ClaimId id) {
    try {
      return write.getAsBoolean();
    } catch (IdempotencyException e) {
      throw e;
    } catch (RuntimeException e) {
      throw new StoreUnavailableException("could not settle " + id, e);
    }
  }
}
