/**
 * The idempotency gate: {@link dev.mcpgate.core.IdempotencyGate}, its policies, the outcomes of a
 * call as values, listeners, and the exceptions (all under {@link
 * dev.mcpgate.core.IdempotencyException}) of the store SPI, of bad input and of {@link
 * dev.mcpgate.core.GateResult#orThrow()}.
 *
 * <p>What runs a call behind the gate (claiming, running, settling, renewing leases, telling
 * listeners) is the engine, in {@code dev.mcpgate.core.internal.engine}: not API.
 *
 * <h2>The failure model</h2>
 *
 * <p>Every outcome the gate decides is a value: {@link dev.mcpgate.core.GateResult} says whether
 * the call executed, replayed, was refused ({@link dev.mcpgate.core.RefusalReason}: a conflict, a
 * call in progress, an unknown earlier outcome) or failed ({@link dev.mcpgate.core.FailureReason}:
 * the store, a commit, a lost lease, an unknown outcome, the action's own exception, a result too
 * large or unreadable, arguments that cannot be hashed, a closed gate). A failure says what is
 * known of the effect ({@link dev.mcpgate.core.GateResult.Effect}: no, yes, unknown) and whether a
 * retry with the same key is safe. What remains thrown: {@link NullPointerException} and {@link
 * IllegalArgumentException} for a bad argument, an {@link Error} of the gate's own parts, and
 * whatever {@code orThrow()} throws for a caller who asks for it.
 *
 * <pre>
 * IdempotencyException                  root; thrown by the step-by-step API when a stored claim
 * |                                     cannot be used (a result that cannot be read back)
 * |-- GateOutcomeException              orThrow() of a refused or failed call; carries the result
 * |-- InvalidIdempotencyKeyException    the key, tenant or tool is missing or malformed: none ran
 * |-- InvalidArgumentsException         the arguments have no canonical form (a failure's cause)
 * |-- StoreUnavailableException         a store could not be reached or could not write (the SPI's
 * |                                     signal; the step-by-step API's failure)
 * |-- ResultTooLargeException           a store's limit on a result (the SPI's signal)
 * |-- ActionFailedException             wraps a checked exception of the action (orThrow(), and
 * |                                     the MCP adapter's handler)
 * |-- OutcomeUnknownException           thrown by an action (or chosen by the policy) that cannot
 * |   |                                 tell whether its effect happened: the key is fenced as
 * |   |                                 unknown until it is settled
 * |   `-- CommitOutcomeUnknownException a store's ClaimingScope could not tell whether its commit
 * |                                     took effect (the SPI's signal)
 * `-- ClaimBusyException                from a store's ClaimingScope only (single-commit mode): the
 *                                       gate turns it into a refusal, callers never see it
 * </pre>
 *
 * <p>Which failure each path gives (plain, transactional, single-commit) is the table "Failures,
 * and what the caller is told" in {@code docs/design.md}.
 */
package dev.mcpgate.core;
