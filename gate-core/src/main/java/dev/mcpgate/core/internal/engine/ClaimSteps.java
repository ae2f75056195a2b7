package dev.mcpgate.core.internal.engine;

import dev.mcpgate.core.ClaimOutcome;
import dev.mcpgate.core.GateEvent;
import dev.mcpgate.core.GatePolicy;
import dev.mcpgate.core.IdempotencyException;
import dev.mcpgate.core.StoreUnavailableException;
import dev.mcpgate.core.spi.IdempotencyStore;
import java.time.Duration;
import java.util.function.BooleanSupplier;

/**
 * The token-checked steps after a claim, for callers that drive them one by one (complete, release,
 * extend the lease, mark unknown). Each write is conditional on the claim's lease token, so an
 * attempt whose lease was taken over changes nothing; a store that throws is reported as {@link
 * StoreUnavailableException}. A running action that extends its lease does it through here too. The
 * steps that need a policy take the calling gate's. Each write is made whatever the thread's
 * interrupt status, which it keeps: a pool refuses a connection to an interrupted thread, and a
 * result or fence not written after the action ran would let a retry run it again.
 */
final class ClaimSteps {
  private final IdempotencyStore store;
  private final Events events;
  private final ResultWriter writer;
  private final DirectScope direct;

  ClaimSteps(IdempotencyStore store, Events events, ResultWriter writer, DirectScope direct) {
    this.store = store;
    this.events = events;
    this.writer = writer;
    this.direct = direct;
  }

  /**
   * @return false when another attempt took the lease over: nothing was stored
   */
  boolean complete(GatePolicy policy, ClaimOutcome.Acquired claim, byte[] result, boolean failure) {
    try {
      return uninterrupted(
          () -> writer.store(policy, direct, DirectScope.RESOURCE, claim, result, failure));
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

  private static boolean write(BooleanSupplier write, ClaimOutcome.Acquired claim, String what) {
    try {
      return uninterrupted(write);
    } catch (IdempotencyException e) {
      throw e;
    } catch (RuntimeException e) {
      throw new StoreUnavailableException("could not " + what + " " + claim.id(), e);
    }
  }

  /** Runs {@code write} with the thread's interrupt status cleared, and restores it after. */
  private static boolean uninterrupted(BooleanSupplier write) {
    boolean wasInterrupted = Thread.interrupted();
    try {
      return write.getAsBoolean();
    } finally {
      if (wasInterrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
