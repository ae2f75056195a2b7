package dev.mcpgate.core;

import java.time.Duration;

/**
 * Thrown by a {@link dev.mcpgate.core.spi.ClaimingScope} when another transaction holds an
 * uncommitted claim of the same key and did not end within the wait. The gate turns it into a
 * refusal ({@link RefusalReason#IN_PROGRESS}): nothing ran, and a retry with the same key later is
 * safe.
 */
public final class ClaimBusyException extends IdempotencyException {
  private static final long serialVersionUID = 1L;

  private final Duration waited;

  /**
   * @param message which key, and how long the claim waited
   * @param waited how long the claim waited for the other transaction
   * @param cause the database's own exception (a lock or statement timeout)
   */
  public ClaimBusyException(String message, Duration waited, Throwable cause) {
    super(message, cause);
    this.waited = waited;
  }

  /**
   * @return how long the claim waited for the other transaction
   */
  public Duration waited() {
    return waited;
  }
}
