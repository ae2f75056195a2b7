package dev.mcpgate.core;

import static dev.mcpgate.core.internal.Checks.notNull;
import static dev.mcpgate.core.internal.Checks.quote;

import dev.mcpgate.core.GateResult.Completion;
import dev.mcpgate.core.GateResult.Reason;
import dev.mcpgate.core.hash.ArgumentHasher;
import dev.mcpgate.core.spi.ClaimAttempt;
import dev.mcpgate.core.spi.ClaimRecord;
import dev.mcpgate.core.spi.ClaimRequest;
import dev.mcpgate.core.spi.IdempotencyStore;
import dev.mcpgate.core.spi.StoredResult;
import dev.mcpgate.core.spi.TransactionScope;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Makes a tool call safe to receive twice: the second arrival of the same intent returns the
 * first result and runs nothing.
 *
 * <pre>{@code
 * IdempotencyGate gate = IdempotencyGate.builder(store)
 *     .policy(GatePolicy.builder().retention(Duration.ofHours(2)).build())
 *     .listener(new Slf4jGateListener())
 *     .build();
 *
 * GateResult<String> result = gate.execute(
 *     ToolCall.of(tenant, "refund_order", key, arguments),
 *     ResultMapper.utf8(),
 *     ctx -> payments.refund(orderId, amount, ctx.downstreamKey()));
 * }</pre>
 *
 * <p>A gate is immutable and thread-safe; {@link #withPolicy} gives a gate with another policy
 * over the same store, codec and listeners (one per tool, say). Two levels of API:
 * <ul>
 *   <li>{@link #execute} claims, runs the action, then completes or releases per the failure
 *       rules, and waits a bounded time on a call that another attempt is running;</li>
 *   <li>{@link #claim}, {@link #complete}, {@link #release}, {@link #extendLease} and
 *       {@link #markUnknown} for callers that drive the steps themselves.</li>
 * </ul>
 */
public final class IdempotencyGate {
  private static final Logger LOG = LoggerFactory.getLogger(IdempotencyGate.class);
  private static final Duration MAX_RETRY_AFTER = Duration.ofSeconds(5);

  private final IdempotencyStore store;
  private final GatePolicy policy;
  private final ResultCodec codec;
  private final List<GateListener> listeners;
  private final DirectScope direct;

  private IdempotencyGate(IdempotencyStore store, GatePolicy policy, ResultCodec codec,
      List<GateListener> listeners) {
    this.store = store;
    this.policy = policy;
    this.codec = codec;
    this.listeners = listeners;
    this.direct = new DirectScope(store);
  }

  /**
   * @param store where claims live
   * @return a builder with the default policy, the identity codec and no listeners
   */
  public static Builder builder(IdempotencyStore store) {
    return new Builder(notNull(store, "store"));
  }

  /**
   * @param policy the policy for the new gate
   * @return a gate over the same store, codec and listeners with another policy
   */
  public IdempotencyGate withPolicy(GatePolicy policy) {
    return new IdempotencyGate(store, notNull(policy, "policy"), codec, listeners);
  }

  /** @return this gate's policy */
  public GatePolicy policy() {
    return policy;
  }

  /** @return the store this gate claims in */
  public IdempotencyStore store() {
    return store;
  }

  // ---------------------------------------------------------------- high level

  /**
   * Runs {@code action} at most once per live claim of {@code call}.
   *
   * <ul>
   *   <li>Fresh (or a takeover): runs the action and stores its result; a failure result or an
   *       exception releases the claim (unless the policy stores failures); an exception that
   *       means "outcome unknown" fences the key instead.</li>
   *   <li>Completed before with the same arguments: returns the stored result, runs nothing.</li>
   *   <li>Running elsewhere: waits up to the policy's in-flight wait for its result, then refuses
   *       with retry-after.</li>
   *   <li>Same key, other arguments: refused as a conflict.</li>
   * </ul>
   *
   * @param call the call
   * @param mapper how results are stored and read back
   * @param action the effect
   * @return executed, replayed or refused
   * @throws StoreUnavailableException if the claim could not be written: the action did not run
   * @throws InvalidArgumentsException if the arguments cannot be hashed: nothing ran
   * @throws ResultTooLargeException if the action ran but its result is too large to store; the
   *     key stays claimed and retries are refused
   * @throws ActionFailedException wrapping a checked exception of the action (unchecked ones
   *     propagate as they are), after the claim was released or fenced
   */
  public <T> GateResult<T> execute(ToolCall call, ResultMapper<T> mapper, GateAction<T> action) {
    notNull(action, "action");
    return execute(call, mapper, direct, (resource, ctx) -> action.run(ctx));
  }

  /**
   * Like {@link #execute(ToolCall, ResultMapper, GateAction)}, but the action and its
   * token-checked completion share one unit of work (a database transaction): either both commit,
   * or, if the lease was lost meanwhile, neither does and {@link LeaseLostException} is thrown. If
   * storing the result fails, the unit rolls back, the claim is released and
   * {@link StoreUnavailableException} says that nothing took effect.
   *
   * @param scope the unit of work, for example a JDBC store's transaction scope
   * @param action the effect, which writes through the scope's resource
   */
  public <T, R> GateResult<T> execute(ToolCall call, ResultMapper<T> mapper,
      TransactionScope<R> scope, ScopedAction<T, R> action) {
    notNull(call, "call");
    notNull(mapper, "mapper");
    notNull(scope, "scope");
    notNull(action, "action");
    String hash = ArgumentHasher.hash(call.arguments(), policy.ignoredArguments());
    ClaimOutcome outcome = claimWaiting(call, hash);
    ClaimId id = call.id();
    if (outcome instanceof ClaimOutcome.Fresh fresh) {
      return runFresh(fresh, mapper, scope, action);
    }
    if (outcome instanceof ClaimOutcome.Replay replay) {
      return replayed(replay, mapper);
    }
    if (outcome instanceof ClaimOutcome.Conflict) {
      return new GateResult.Refused<>(id, Reason.CONFLICT, Duration.ZERO,
          "The idempotency key " + quote(id.key()) + " was already used for a call to "
              + id.tool() + " with different arguments. Use a new key for a new request, or resend"
              + " the original arguments to get the original result.");
    }
    if (outcome instanceof ClaimOutcome.InFlight f) {
      return new GateResult.Refused<>(id, Reason.IN_PROGRESS,
          f.retryAfter(), "A call to " + id.tool() + " with idempotency key " + quote(id.key())
              + " is still running. Retry the same call with the same key after "
              + f.retryAfter().toMillis() + " ms to get its result; do not use a new key.");
    }
    ClaimOutcome.OutcomeUnknown u = (ClaimOutcome.OutcomeUnknown) outcome;
    return new GateResult.Refused<>(id, Reason.OUTCOME_UNKNOWN,
        u.retryAfter(), "An earlier attempt of this call to " + id.tool()
            + " ended without knowing whether it took effect, so it is not run again now."
            + " Retry with the same key after " + u.retryAfter().toMillis()
            + " ms, or check whether the effect happened.");
  }

  private ClaimOutcome claimWaiting(ToolCall call, String hash) {
    long deadline = System.nanoTime() + policy.inFlightWait().toNanos();
    long backoffMs = 5;
    while (true) {
      ClaimOutcome outcome = claimOnce(call, hash);
      if (!(outcome instanceof ClaimOutcome.InFlight inFlight)) {
        return outcome;
      }
      long remainingMs = (deadline - System.nanoTime()) / 1_000_000;
      if (remainingMs <= 0) {
        emitInFlight(inFlight);
        return outcome;
      }
      long sleepMs = Math.max(1, Math.min(Math.min(backoffMs, remainingMs),
          inFlight.retryAfter().toMillis()));
      try {
        Thread.sleep(sleepMs);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        emitInFlight(inFlight);
        return outcome;
      }
      backoffMs = Math.min(backoffMs * 2, 100);
    }
  }

  private <T> GateResult<T> replayed(ClaimOutcome.Replay replay, ResultMapper<T> mapper) {
    StoredResult result = replay.result();
    if (result.kind() == StoredResult.Kind.NOT_STORED) {
      return new GateResult.Refused<>(replay.id(), Reason.RESULT_NOT_STORED, Duration.ZERO,
          "This call to " + replay.id().tool() + " ran before, but its result was too large to"
              + " keep. It will not run again with this key; check its effect directly.");
    }
    T value;
    try {
      value = mapper.fromBytes(result.body());
    } catch (RuntimeException e) {
      throw new IdempotencyException("the stored result of " + replay.id()
          + " cannot be read back (" + result.body().length + " bytes); was the result mapper"
          + " or codec changed?", e);
    }
    return new GateResult.Replayed<>(replay.id(), value,
        result.kind() == StoredResult.Kind.FAILURE, replay.firstExecutedAt());
  }

  private <T, R> GateResult<T> runFresh(ClaimOutcome.Fresh claim, ResultMapper<T> mapper,
      TransactionScope<R> scope, ScopedAction<T, R> action) {
    boolean transactional = scope != direct;
    ClaimId id = claim.id();
    R resource;
    try {
      resource = scope.begin();
    } catch (RuntimeException e) {
      afterActionFailure(claim, e);
      throw new StoreUnavailableException("could not begin the unit of work for " + id
          + "; the action did not run; safe to retry", e);
    }
    try {
      T value;
      try {
        value = action.run(resource, new ClaimContext(this, claim));
      } catch (Throwable t) {
        rollbackQuietly(scope, resource, t);
        afterActionFailure(claim, t);
        throw rethrow(id, t);
      }
      try {
        boolean failure = mapper.isFailure(value);
        if (failure && policy.failureMode() == GatePolicy.FailureMode.RELEASE) {
          boolean released = scope.release(resource, id, claim.token());
          scope.commit(resource);
          emit(released ? GateEvent.Type.RELEASED : GateEvent.Type.LEASE_LOST, id,
              claim.attempt(), released ? "failure result; claim released, a retry runs again"
                  : "failure result, but the lease had been taken over", null);
          return new GateResult.Executed<>(id, value, claim,
              released ? Completion.RELEASED : Completion.LEASE_LOST);
        }
        boolean stored = storeResult(scope, resource, claim, mapper.toBytes(value), failure);
        if (!stored) {
          rollbackQuietly(scope, resource, null);
          if (transactional) {
            throw new LeaseLostException("the lease of " + id + " (attempt " + claim.attempt()
                + ") was taken over by another attempt before completion; this attempt's"
                + " transaction was rolled back");
          }
          return new GateResult.Executed<>(id, value, claim, Completion.LEASE_LOST);
        }
        scope.commit(resource);
        return new GateResult.Executed<>(id, value, claim, Completion.STORED);
      } catch (ResultTooLargeException | LeaseLostException e) {
        throw e;
      } catch (RuntimeException e) {
        rollbackQuietly(scope, resource, e);
        if (transactional) {
          afterActionFailure(claim, e);
          throw new StoreUnavailableException("could not store the result of " + id
              + "; its transaction was rolled back, nothing took effect; safe to retry", e);
        }
        emit(GateEvent.Type.COMPLETION_FAILED, id, claim.attempt(),
            "the action ran but its result could not be stored; the key stays claimed until"
                + " its lease expires", e);
        return new GateResult.Executed<>(id, value, claim, Completion.STORE_FAILED);
      }
    } finally {
      try {
        scope.close(resource);
      } catch (RuntimeException e) {
        LOG.warn("could not close the unit of work of {}", id, e);
      }
    }
  }

  /**
   * Encodes and stores a result through the scope; refuses one over the size limit after fencing
   * the key with a not-stored marker. Emits COMPLETED or LEASE_LOST.
   *
   * @return false when the lease was lost
   */
  private <R> boolean storeResult(TransactionScope<R> scope, R resource, ClaimOutcome.Fresh claim,
      byte[] plain, boolean failure) {
    ClaimId id = claim.id();
    byte[] encoded = codec.encode(id, plain);
    boolean ok;
    try {
      if (encoded.length > policy.maxResultBytes()) {
        throw new ResultTooLargeException("the result of " + id + " is " + encoded.length
            + " bytes, over the limit of " + policy.maxResultBytes() + " bytes; it was not"
            + " stored, and the key stays claimed: retries are refused, not run again",
            encoded.length, policy.maxResultBytes());
      }
      StoredResult result = new StoredResult(
          failure ? StoredResult.Kind.FAILURE : StoredResult.Kind.VALUE, encoded);
      ok = scope.complete(resource, id, claim.token(), result, policy.retention());
    } catch (ResultTooLargeException tooLarge) {
      boolean marked = scope.complete(resource, id, claim.token(), StoredResult.notStored(),
          policy.retention());
      scope.commit(resource);
      emit(GateEvent.Type.COMPLETION_FAILED, id, claim.attempt(), marked
          ? "result too large to store; the key is fenced as not stored"
          : "result too large to store, and the lease had been taken over", tooLarge);
      throw tooLarge;
    }
    emit(ok ? GateEvent.Type.COMPLETED : GateEvent.Type.LEASE_LOST, id, claim.attempt(),
        ok ? "result stored (" + encoded.length + " bytes)"
            : "the lease had been taken over by another attempt; this result was not stored",
        null);
    return ok;
  }

  private void afterActionFailure(ClaimOutcome.Fresh claim, Throwable failure) {
    ClaimId id = claim.id();
    try {
      if (policy.isOutcomeUnknown(failure)) {
        boolean marked = store.markUnknown(id, claim.token());
        emit(marked ? GateEvent.Type.OUTCOME_UNKNOWN : GateEvent.Type.LEASE_LOST, id,
            claim.attempt(), marked ? "outcome unknown; the key is fenced until its lease expires"
                : "outcome unknown, and the lease had been taken over", failure);
      } else {
        boolean released = store.release(id, claim.token());
        emit(released ? GateEvent.Type.RELEASED : GateEvent.Type.LEASE_LOST, id, claim.attempt(),
            released ? "the action failed; claim released, a retry runs again"
                : "the action failed, and the lease had been taken over", failure);
      }
    } catch (RuntimeException e) {
      failure.addSuppressed(e);
      emit(GateEvent.Type.COMPLETION_FAILED, id, claim.attempt(),
          "the action failed and the claim could not be released; the key stays claimed until"
              + " its lease expires", e);
    }
  }

  private static RuntimeException rethrow(ClaimId id, Throwable t) {
    if (t instanceof RuntimeException re) {
      return re;
    }
    if (t instanceof Error error) {
      throw error;
    }
    return new ActionFailedException("the action of " + id + " failed", t);
  }

  private static <R> void rollbackQuietly(TransactionScope<R> scope, R resource, Throwable cause) {
    try {
      scope.rollback(resource);
    } catch (RuntimeException e) {
      if (cause != null) {
        cause.addSuppressed(e);
      } else {
        LOG.warn("rollback failed", e);
      }
    }
  }

  // ---------------------------------------------------------------- low level

  /**
   * Claims the call once, without waiting. On {@link ClaimOutcome.Fresh} the caller holds the key
   * and must {@link #complete}, {@link #release} or {@link #markUnknown} it.
   *
   * @param call the call
   * @return the outcome
   * @throws StoreUnavailableException if the claim could not be written
   * @throws InvalidArgumentsException if the arguments cannot be hashed
   */
  public ClaimOutcome claim(ToolCall call) {
    notNull(call, "call");
    ClaimOutcome outcome =
        claimOnce(call, ArgumentHasher.hash(call.arguments(), policy.ignoredArguments()));
    if (outcome instanceof ClaimOutcome.InFlight inFlight) {
      emitInFlight(inFlight);
    }
    return outcome;
  }

  private ClaimOutcome claimOnce(ToolCall call, String hash) {
    return claimOnce(call, hash, 0);
  }

  private ClaimOutcome claimOnce(ToolCall call, String hash, int reconciliations) {
    ClaimId id = call.id();
    LeaseToken token = LeaseToken.random();
    ClaimAttempt attempt;
    try {
      attempt = store.claim(new ClaimRequest(id, hash, token, policy.lease(), policy.retention()));
    } catch (StoreUnavailableException e) {
      throw new StoreUnavailableException("could not claim " + id + "; the action did not run;"
          + " safe to retry: " + e.getMessage(), e);
    } catch (IdempotencyException e) {
      throw e;
    } catch (RuntimeException e) {
      throw new StoreUnavailableException("could not claim " + id
          + " in the store; the action did not run; safe to retry", e);
    }
    ClaimRecord row = attempt.record();
    if (attempt instanceof ClaimAttempt.Acquired) {
      if (!row.token().equals(token)) {
        throw new IllegalStateException("store " + store.getClass().getName()
            + " reported a claim of " + id + " that its new token does not hold");
      }
      ClaimOutcome.Fresh fresh = new ClaimOutcome.Fresh(id, token, row.attempt(),
          row.createdAt(), row.leaseExpiresAt());
      emit(fresh.isTakeover() ? GateEvent.Type.TAKEOVER : GateEvent.Type.FRESH, id,
          row.attempt(), fresh.isTakeover()
              ? "took over an expired lease; the action runs again (attempt " + row.attempt() + ")"
              : "claimed; the action runs", null);
      return fresh;
    }
    if (!ArgumentHasher.matches(row.argsHash(), hash)) {
      emit(GateEvent.Type.CONFLICT, id, 0, "same key, different arguments; refused", null);
      return new ClaimOutcome.Conflict(id, row.argsHash(), hash);
    }
    Duration leaseLeft = Duration.between(attempt.storeNow(), row.leaseExpiresAt());
    return switch (row.state()) {
      case COMPLETED -> {
        StoredResult stored = row.result();
        if (stored.kind() != StoredResult.Kind.NOT_STORED) {
          stored = new StoredResult(stored.kind(), codec.decode(id, stored.body()));
        }
        emit(GateEvent.Type.REPLAYED, id, row.attempt(), "replayed the stored result", null);
        yield new ClaimOutcome.Replay(id, stored, row.createdAt(), row.completedAt());
      }
      case IN_PROGRESS -> new ClaimOutcome.InFlight(id, clamp(leaseLeft, MAX_RETRY_AFTER));
      case UNKNOWN -> {
        ClaimOutcome reconciled = reconcile(call, hash, row, attempt.storeNow(), reconciliations);
        if (reconciled != null) {
          yield reconciled;
        }
        emit(GateEvent.Type.OUTCOME_UNKNOWN, id, row.attempt(),
            "an earlier attempt's outcome is unknown; refused until its lease expires", null);
        yield new ClaimOutcome.OutcomeUnknown(id, clamp(leaseLeft, leaseLeft.plusMillis(1)));
      }
    };
  }

  /**
   * Asks the policy's reconciler about an unknown row. On "happened" the result is stored with
   * the row's own token (so only the row that was read is changed) and replayed; on "did not
   * happen" the fence is released with that token and the call claims again.
   *
   * @return the outcome, or null to refuse as unknown
   */
  private ClaimOutcome reconcile(ToolCall call, String hash, ClaimRecord row, Instant storeNow,
      int reconciliations) {
    Reconciler reconciler = policy.reconciler();
    if (reconciler == null || reconciliations >= 3) {
      return null;
    }
    ClaimId id = call.id();
    Reconciler.Verdict verdict;
    try {
      verdict = reconciler.reconcile(id, DownstreamKey.of(id));
    } catch (Exception e) {
      LOG.warn("reconciler failed for {}; the outcome stays unknown", id, e);
      return null;
    }
    try {
      return applyVerdict(call, hash, row, storeNow, reconciliations, verdict);
    } catch (RuntimeException e) {
      LOG.warn("could not apply the reconciler's verdict for {}; the outcome stays unknown", id, e);
      return null;
    }
  }

  private ClaimOutcome applyVerdict(ToolCall call, String hash, ClaimRecord row, Instant storeNow,
      int reconciliations, Reconciler.Verdict verdict) {
    ClaimId id = call.id();
    if (verdict instanceof Reconciler.Verdict.Happened happened) {
      byte[] encoded = codec.encode(id, happened.result());
      if (encoded.length > policy.maxResultBytes()) {
        LOG.warn("the reconciled result of {} is {} bytes, over the limit; the outcome stays"
            + " unknown", id, encoded.length);
        return null;
      }
      boolean stored = store.complete(id, row.token(),
          new StoredResult(StoredResult.Kind.VALUE, encoded), policy.retention());
      emit(GateEvent.Type.COMPLETED, id, row.attempt(), stored
          ? "reconciled: the effect happened; its result is stored" : "reconciled, but the row"
          + " changed meanwhile", null);
      if (!stored) {
        return claimOnce(call, hash, reconciliations + 1);
      }
      emit(GateEvent.Type.REPLAYED, id, row.attempt(), "replayed the reconciled result", null);
      return new ClaimOutcome.Replay(id, new StoredResult(StoredResult.Kind.VALUE,
          happened.result()), row.createdAt(), storeNow);
    }
    if (verdict instanceof Reconciler.Verdict.NotHappened) {
      boolean released = store.release(id, row.token());
      emit(GateEvent.Type.RELEASED, id, row.attempt(), released
          ? "reconciled: the effect did not happen; the fence is lifted" : "reconciled, but the"
          + " row changed meanwhile", null);
      return claimOnce(call, hash, reconciliations + 1);
    }
    return null;
  }

  private static Duration clamp(Duration value, Duration max) {
    Duration min = Duration.ofMillis(1);
    if (value.compareTo(min) < 0) {
      return min;
    }
    return value.compareTo(max) > 0 ? max : value;
  }

  private void emitInFlight(ClaimOutcome.InFlight inFlight) {
    emit(GateEvent.Type.IN_FLIGHT, inFlight.id(), 0, "another attempt is running the call;"
        + " refused with retry-after " + inFlight.retryAfter().toMillis() + " ms", null);
  }

  /**
   * Stores the result of a fresh claim for replay.
   *
   * @param claim the fresh claim
   * @param result the result bytes (encoded by the codec before storing)
   * @param failure true to store it as a failure result
   * @return false when another attempt took the lease over: nothing was stored
   * @throws ResultTooLargeException if the encoded result is over the limit; the key is then
   *     fenced with a not-stored marker, not freed
   */
  public boolean complete(ClaimOutcome.Fresh claim, byte[] result, boolean failure) {
    notNull(claim, "claim");
    notNull(result, "result");
    try {
      return storeResult(direct, DirectScope.RESOURCE, claim, result, failure);
    } catch (IdempotencyException e) {
      throw e;
    } catch (RuntimeException e) {
      emit(GateEvent.Type.COMPLETION_FAILED, claim.id(), claim.attempt(),
          "the result could not be stored", e);
      throw new StoreUnavailableException("could not store the result of " + claim.id(), e);
    }
  }

  /**
   * Releases a fresh claim (deletes its row), so that a retry runs the action again.
   *
   * @return false when another attempt took the lease over: nothing was deleted
   */
  public boolean release(ClaimOutcome.Fresh claim) {
    notNull(claim, "claim");
    boolean released = storeCall(() -> store.release(claim.id(), claim.token()), claim, "release");
    emit(released ? GateEvent.Type.RELEASED : GateEvent.Type.LEASE_LOST, claim.id(),
        claim.attempt(), released ? "claim released" : "release refused: lease taken over", null);
    return released;
  }

  /**
   * Extends a fresh claim's lease (a heartbeat for long actions).
   *
   * @param lease the new lease from the store's now, at least 1 ms
   * @return false when another attempt took the lease over
   */
  public boolean extendLease(ClaimOutcome.Fresh claim, Duration lease) {
    notNull(claim, "claim");
    dev.mcpgate.core.internal.Checks.positiveMillis(lease, "lease");
    boolean extended =
        storeCall(() -> store.extendLease(claim.id(), claim.token(), lease), claim, "extend");
    if (!extended) {
      emit(GateEvent.Type.LEASE_LOST, claim.id(), claim.attempt(),
          "lease extension refused: the lease was taken over", null);
    }
    return extended;
  }

  /**
   * Fences a fresh claim as "outcome unknown": retries are refused until its lease expires.
   *
   * @return false when another attempt took the lease over
   */
  public boolean markUnknown(ClaimOutcome.Fresh claim) {
    notNull(claim, "claim");
    boolean marked =
        storeCall(() -> store.markUnknown(claim.id(), claim.token()), claim, "mark unknown");
    emit(marked ? GateEvent.Type.OUTCOME_UNKNOWN : GateEvent.Type.LEASE_LOST, claim.id(),
        claim.attempt(), marked ? "outcome unknown; key fenced" : "lease taken over", null);
    return marked;
  }

  /**
   * The stored row for (tenant, tool, key), for operators: "did we refund ord_9f2 twice?"
   *
   * @return the row, or empty
   */
  public Optional<ClaimRecord> find(ClaimId id) {
    return store.find(notNull(id, "id"));
  }

  /** @return the store's clock */
  public Instant storeNow() {
    return store.now();
  }

  private boolean storeCall(java.util.function.BooleanSupplier call, ClaimOutcome.Fresh claim,
      String what) {
    try {
      return call.getAsBoolean();
    } catch (IdempotencyException e) {
      throw e;
    } catch (RuntimeException e) {
      throw new StoreUnavailableException("could not " + what + " " + claim.id(), e);
    }
  }

  private void emit(GateEvent.Type type, ClaimId id, int attempt, String message, Throwable error) {
    if (listeners.isEmpty()) {
      return;
    }
    GateEvent event = new GateEvent(type, id, attempt, message, error);
    for (GateListener listener : listeners) {
      try {
        listener.onEvent(event);
      } catch (RuntimeException e) {
        LOG.warn("gate listener {} failed on {} {}", listener, type, id, e);
      }
    }
  }

  /** Completes and releases straight through the store, outside any transaction. */
  private static final class DirectScope implements TransactionScope<Object> {
    static final Object RESOURCE = new Object();
    private final IdempotencyStore store;

    DirectScope(IdempotencyStore store) {
      this.store = store;
    }

    @Override
    public Object begin() {
      return RESOURCE;
    }

    @Override
    public boolean complete(Object r, ClaimId id, LeaseToken token, StoredResult result,
        Duration retention) {
      return store.complete(id, token, result, retention);
    }

    @Override
    public boolean release(Object r, ClaimId id, LeaseToken token) {
      return store.release(id, token);
    }

    @Override
    public void commit(Object r) {}

    @Override
    public void rollback(Object r) {}

    @Override
    public void close(Object r) {}
  }

  /** Builds a gate; every setter checks its argument. */
  public static final class Builder {
    private final IdempotencyStore store;
    private GatePolicy policy = GatePolicy.defaults();
    private ResultCodec codec = ResultCodec.identity();
    private final List<GateListener> listeners = new ArrayList<>();

    private Builder(IdempotencyStore store) {
      this.store = store;
    }

    /** @param policy the default policy of the gate */
    public Builder policy(GatePolicy policy) {
      this.policy = notNull(policy, "policy");
      return this;
    }

    /** @param codec transforms result bytes into and out of the store */
    public Builder codec(ResultCodec codec) {
      this.codec = notNull(codec, "codec");
      return this;
    }

    /** @param listener told of every decision; may be called more than once to add several */
    public Builder listener(GateListener listener) {
      listeners.add(notNull(listener, "listener"));
      return this;
    }

    /** @return the gate */
    public IdempotencyGate build() {
      return new IdempotencyGate(store, policy, codec, List.copyOf(listeners));
    }
  }
}
