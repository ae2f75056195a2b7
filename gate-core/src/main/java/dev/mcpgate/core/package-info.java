/**
 * The idempotency gate: {@link dev.mcpgate.core.IdempotencyGate}, its policies, the outcomes of a
 * claim as values, listeners, and the exceptions (all under {@link
 * dev.mcpgate.core.IdempotencyException}) for real failures.
 *
 * <p>What runs a call behind the gate (claiming, running, settling, renewing leases, telling
 * listeners) is the engine, in {@code dev.mcpgate.core.internal.engine}: not API.
 *
 * <h2>The failure model</h2>
 *
 * <p>The normal outcomes of a claim are values, never exceptions: {@link
 * dev.mcpgate.core.GateResult} says whether the call executed, replayed or was refused (a conflict,
 * a call in progress, an unknown earlier outcome), and {@link dev.mcpgate.core.GateResult.Executed}
 * says what became of an executed result. An exception always means a failure, and its type says
 * what is known of the effect: <b>nothing ran</b> (or nothing of it took effect), <b>it ran</b>, or
 * <b>whether it took effect is not known</b>. Every exception the gate throws is an {@link
 * dev.mcpgate.core.IdempotencyException}, except three kinds: the action's own unchecked exceptions
 * and errors, which propagate as they are once the claim was released or fenced; {@link
 * NullPointerException} and {@link IllegalArgumentException} for a bad argument; and {@link
 * IllegalStateException} from a closed gate. Nothing ran for the last two.
 *
 * <pre>
 * IdempotencyException                  root; thrown as such when a stored claim cannot be used: a
 * |                                     result that cannot be read back or decrypted, a hash of a
 * |                                     version this release cannot compute
 * |-- InvalidIdempotencyKeyException    the key, tenant or tool is missing or malformed: none ran
 * |-- InvalidArgumentsException         the arguments have no canonical form: nothing ran
 * |-- StoreUnavailableException         the store failed and nothing took effect: safe to retry
 * |   `-- CommitRolledBackException     a transactional commit failed and read back rolled back;
 * |                                     the claim was released: safe to retry
 * |-- LeaseLostException                a transactional attempt's lease was taken over before it
 * |                                     completed: its writes were rolled back, the other attempt
 * |                                     owns the key
 * |-- ResultTooLargeException           the action ran; its result is over the limit and was not
 * |                                     stored; the key stays fenced, retries are refused
 * |-- ActionFailedException             wraps a checked exception of the action, after the claim
 * |                                     was released, rolled back or fenced as unknown (per policy)
 * |-- OutcomeUnknownException           thrown by an action (or chosen by the policy) that cannot
 * |   |                                 tell whether its effect happened: the key is fenced as
 * |   |                                 unknown until it is settled
 * |   `-- CommitOutcomeUnknownException the action ran and the commit of its writes failed in a way
 * |                                     nobody can tell: a retry with the same key finds out
 * `-- ClaimBusyException                from a store's ClaimingScope only (single-commit mode): the
 *                                       gate turns it into a refusal, callers never see it
 * </pre>
 *
 * <p>Where each is thrown, path by path (plain, transactional, single-commit), is the table
 * "Failures, and what the caller is told" in {@code docs/design.md}.
 */
package dev.mcpgate.core;
