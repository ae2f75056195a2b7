package dev.mcpgate.core;

/**
 * Why a call was refused before the gate claimed anything: it had no usable tenant, key or
 * arguments, or the server's authorizer refused it. Told to listeners as a {@link
 * GateEvent.Type#REJECTED} event, so that metrics count the calls a dashboard would otherwise never
 * see (a client that never sends a key). In every case nothing ran and nothing was stored. The
 * gate's own refusals, about a claim, are {@link RefusalReason}s.
 */
public enum RejectionReason {
  /** The server could not tell whose call it is (no tenant source answered). */
  TENANT_UNKNOWN,
  /** The server's tenant for the call is not a valid identifier (see {@link ClaimId}). */
  TENANT_INVALID,
  /** The server's authorizer refused the caller. */
  FORBIDDEN,
  /** The call carried no idempotency key where one is required. */
  KEY_REQUIRED,
  /**
   * The call's idempotency key is not valid (see {@link ClaimId}), or it sent two different ones.
   */
  KEY_INVALID,
  /**
   * The call's arguments cannot be compared for retries: a number read inexactly (as a {@code
   * double}), a value with no canonical form (NaN, an infinity), or arguments over the byte
   * budgets.
   */
  ARGUMENTS_INVALID
}
