/**
 * The engine behind {@code dev.mcpgate.core.IdempotencyGate}: how a call is claimed, run, settled
 * and told to listeners. Not API, and not for MCP Gate's other modules either: only the gate calls
 * it, through {@link dev.mcpgate.core.internal.engine.GateEngine}, the one public class here.
 *
 * <p>The engine speaks the API's vocabulary (the values, policies, listeners and exceptions of
 * {@code dev.mcpgate.core}, and the store contract of {@code dev.mcpgate.core.spi}) but never
 * imports the facade: a running action's {@code ClaimContext} reaches its lease through {@link
 * dev.mcpgate.core.ClaimContext.Lease}, which {@code AttemptLease} implements here.
 *
 * <ul>
 *   <li>{@code GateEngine}: the parts, wired once per gate; the path of one call, with the calling
 *       gate's policy.
 *   <li>{@code Claimer}: the claim, the bounded wait on another attempt, and the refusals; {@code
 *       Reconciliation} asks the policy's reconciler about an unknown outcome.
 *   <li>{@code AttemptRunner}: runs an acquired claim's action in a unit of work ({@code
 *       DirectScope} for a plain action) and stores its result; {@code FailureSettler} releases or
 *       fences what did not end stored, by the failure rules; {@code CommitResolver} commits, and
 *       asks the store what a commit that threw did; {@code SingleCommitRunner} runs the action
 *       with the claim inside its transaction.
 *   <li>{@code ResultWriter}: encodes a result, enforces the size limit, and writes the
 *       token-checked completion.
 *   <li>{@code LeaseRenewer}: renews running actions' leases, on a scheduler that times the tries
 *       and worker threads that run them; {@code Renewal} is one attempt's lease and phase, {@code
 *       AttemptLease} a running action's view of it.
 *   <li>{@code LateFencer}: writes the fences the store could not take when their attempts ended,
 *       on the renewer's scheduler and workers, while their leases stay renewed; {@code
 *       FenceWriter} writes one fence, for the attempt and for the late fencer.
 *   <li>{@code ClaimSteps}: the token-checked steps of the step-by-step API.
 *   <li>{@code Events}: tells the listeners, never letting one fail a call.
 * </ul>
 */
package dev.mcpgate.core.internal.engine;
