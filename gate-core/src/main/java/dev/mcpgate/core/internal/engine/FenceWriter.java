package dev.mcpgate.core.internal.engine;

import dev.mcpgate.core.ClaimOutcome;
import dev.mcpgate.core.GateEvent;
import dev.mcpgate.core.GatePolicy;
import dev.mcpgate.core.spi.ClaimRecord;
import dev.mcpgate.core.spi.ClaimState;
import dev.mcpgate.core.spi.IdempotencyStore;
import java.util.Optional;

/**
 * Writes an attempt's fence (the key marked unknown: the action ran, or may have), token-checked,
 * and reads what the row holds when the store refuses it. Used by the attempt as it ends, and by
 * the {@link LateFencer} for a fence the store could not take then.
 */
final class FenceWriter {
  private FenceWriter() {}

  /** What a fence's write found. */
  enum Fence {
    /** The key is fenced as unknown by this attempt (now, or by an earlier try). */
    WRITTEN,
    /** This attempt's result was stored after all: the completion's answer had been lost. */
    STORED,
    /** Another attempt had taken the key over: it decides. */
    TAKEN_OVER
  }

  /**
   * Writes the fence, token-checked, and tells the listeners what it found.
   *
   * @return what it found
   * @throws RuntimeException when the store cannot take it
   */
  static Fence write(
      IdempotencyStore store,
      Events events,
      GatePolicy policy,
      ClaimOutcome.Acquired claim,
      String message,
      Throwable failure) {
    if (store.markUnknown(claim.id(), claim.token(), policy.unknownFence())) {
      events.emit(GateEvent.Type.MARKED_UNKNOWN, claim, message, failure);
      return Fence.WRITTEN;
    }
    // refused: read what the row holds rather than guess (an earlier try whose answer was lost
    // may have written this very fence, or the completion whose answer was lost landed)
    Optional<ClaimRecord> row = store.find(claim.id());
    boolean ours = row.isPresent() && row.get().token().equals(claim.token());
    if (ours && row.get().state() == ClaimState.UNKNOWN) {
      events.emit(
          GateEvent.Type.MARKED_UNKNOWN,
          claim,
          message + " (an earlier try, whose answer was lost, had written it)",
          failure);
      return Fence.WRITTEN;
    }
    if (ours && row.get().state() == ClaimState.COMPLETED) {
      events.emit(
          GateEvent.Type.COMPLETED,
          claim,
          "the result was stored after all (the completion's answer had been lost); no fence"
              + " needed",
          failure);
      return Fence.STORED;
    }
    events.emit(
        GateEvent.Type.LEASE_LOST,
        claim,
        "outcome unknown, and the lease had been taken over before the key could be fenced:"
            + " the other attempt decides",
        failure);
    return Fence.TAKEN_OVER;
  }
}
