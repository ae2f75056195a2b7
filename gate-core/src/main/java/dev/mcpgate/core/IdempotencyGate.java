package dev.mcpgate.core;

import static dev.mcpgate.core.internal.Checks.notNull;

import dev.mcpgate.core.internal.Checks;
import dev.mcpgate.core.internal.engine.GateEngine;
import dev.mcpgate.core.internal.engine.Ticker;
import dev.mcpgate.core.spi.ClaimRecord;
import dev.mcpgate.core.spi.ClaimingScope;
import dev.mcpgate.core.spi.IdempotencyStore;
import dev.mcpgate.core.spi.TransactionScope;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;

/**
 * Makes a tool call safe to receive twice: the second arrival of the same intent returns the first
 * result and runs nothing.
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
 * <p>A gate is immutable and thread-safe; {@link #withPolicy} gives a gate with another policy over
 * the same store, codec and listeners (one per tool, say). Two levels of API:
 *
 * <ul>
 *   <li>{@link #execute} claims, runs the action, then completes or releases per the failure rules,
 *       and waits a bounded time on a call that another attempt is running;
 *   <li>{@link #claim}, {@link #complete}, {@link #release}, {@link #extendLease} and {@link
 *       #markUnknown} for callers that drive the steps themselves.
 * </ul>
 *
 * Every outcome of {@link #execute} is a {@link GateResult}, failures included. Messages are for
 * Java callers and operators; the MCP adapter writes its own sentences for models.
 *
 * <p>While {@link #execute} runs an action, the gate renews its lease on a thread of its own (see
 * {@link GatePolicy#leaseRenewal()}), until {@link #close()}.
 */
public final class IdempotencyGate implements AutoCloseable {
  private final GateEngine engine;
  private final GatePolicy policy;
  private final boolean owner; // the builder's gate, whose close() closes the engine

  /**
   * @param engine wired once by the builder, and shared by every gate {@link #withPolicy} makes
   * @param policy this gate's, passed to the engine with each call
   */
  private IdempotencyGate(GateEngine engine, GatePolicy policy, boolean owner) {
    this.engine = engine;
    this.policy = policy;
    this.owner = owner;
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
   * @return a gate over the same store, codec, listeners and engine (nothing wired anew) with
   *     another policy: cheap to make one per tool
   */
  public IdempotencyGate withPolicy(GatePolicy policy) {
    return new IdempotencyGate(engine, notNull(policy, "policy"), false);
  }

  /**
   * On the gate the builder made, for it and every gate {@link #withPolicy} made from it: calls
   * from now on are {@code Failed(GATE_CLOSED)} (a {@link #claim} throws), nothing run, as is one
   * inside that had not started its action; the running ones are waited for (at most {@link
   * Builder#drainTimeout}), their leases renewed; then it stops renewing leases, and the renewal
   * thread if it started one (a given scheduler is the caller's to stop). An action still running
   * then loses its renewals (logged at WARN): once its lease runs out a retry may take the key over
   * and run it again. The store is the caller's to close. On a gate {@link #withPolicy} made:
   * nothing.
   */
  @Override
  public void close() {
    if (owner) {
      engine.close();
    }
  }

  /**
   * @return the engine, for tests (what it renews now; a context for a {@link #claim})
   */
  GateEngine engine() {
    return engine;
  }

  /**
   * Tells this gate's listeners of a call refused before it reached the gate (a {@link
   * GateEvent.Type#REJECTED} event), so that meters and spans count it too: for adapters that
   * decide a call's tenant and key before {@link #execute}. Nothing is claimed or stored.
   *
   * @param tool the tool called
   * @param rejection why it was refused
   * @param keySource where its key came from ({@code argument}, {@code meta}, {@code natural},
   *     {@code header}) when it had one, else null
   * @throws NullPointerException if tool or rejection is null
   */
  public void rejected(String tool, RejectionReason rejection, String keySource) {
    engine.rejected(notNull(tool, "tool"), notNull(rejection, "rejection"), keySource);
  }

  /** This gate's policy. */
  public GatePolicy policy() {
    return policy;
  }

  /**
   * Runs {@code action} at most once per live claim of {@code call}.
   *
   * <ul>
   *   <li>Acquired (a first attempt, or a takeover): runs the action and stores its result; a
   *       failure result or an exception releases the claim (unless the policy stores failures); an
   *       exception that means "outcome unknown" fences the key instead.
   *   <li>Completed before with the same arguments: replays the stored result, runs nothing.
   *   <li>Running elsewhere: waits up to the policy's in-flight wait for its result, then refuses
   *       with retry-after.
   *   <li>Same key, other arguments: refused as a conflict.
   * </ul>
   *
   * @param call the call
   * @param mapper how results are stored and read back
   * @param action the effect
   * @return executed, replayed, refused or failed: a failure of the store, of the action (its
   *     exception, an {@link Error} too, in {@link GateResult.Failed#cause()}, after the claim was
   *     released or fenced), of the result (too large, unreadable), or a closed gate, with what is
   *     known of the effect; {@link GateResult#orThrow()} for callers who prefer exceptions
   */
  public <T> GateResult<T> execute(ToolCall call, ResultMapper<T> mapper, GateAction<T> action) {
    return engine.execute(
        policy, notNull(call, "call"), notNull(mapper, "mapper"), notNull(action, "action"));
  }

  /**
   * Like {@link #execute(ToolCall, ResultMapper, GateAction)}, but the action and its token-checked
   * completion share one unit of work (a database transaction): either both commit, or, if the
   * lease was lost meanwhile, neither does and the result is a {@link GateResult.Failed} for {@link
   * FailureReason#LEASE_LOST}. If storing the result fails, the unit rolls back, the claim is
   * released and the failure ({@link FailureReason#ROLLED_BACK}) says that nothing took effect.
   *
   * @param scope the unit of work, for example a JDBC store's transaction scope
   * @param action the effect, which writes through the scope's resource
   */
  public <T, R> GateResult<T> execute(
      ToolCall call, ResultMapper<T> mapper, TransactionScope<R> scope, ScopedAction<T, R> action) {
    notNull(call, "call");
    notNull(mapper, "mapper");
    notNull(scope, "scope");
    notNull(action, "action");
    return engine.execute(policy, call, mapper, scope, action);
  }

  /**
   * Single-commit mode, for effects in the store's own database: the claim, the action's writes and
   * the completion are one transaction and one commit. A concurrent duplicate waits on the database
   * (at most the policy's in-flight wait) until that transaction ends, then replays its result, or
   * runs if it rolled back; if the wait runs out, the call is refused as in progress. An exception
   * of the action, or a crash, rolls everything back, the claim included: the key is free again at
   * once, with no lease to wait out. Leases play no part here: {@link ClaimContext#extendLease} has
   * nothing to extend.
   *
   * @param scope the unit of work that claims, for example a JDBC store's {@code singleCommit()}
   * @param action the effect, which writes through the scope's resource
   * @return executed, replayed, refused or failed: the transaction could not begin or claim ({@link
   *     FailureReason#STORE_UNAVAILABLE}: nothing ran), or its commit failed ({@link
   *     FailureReason#COMMIT_UNKNOWN}: a retry with the same key finds out)
   */
  public <T, R> GateResult<T> executeSingleCommit(
      ToolCall call, ResultMapper<T> mapper, ClaimingScope<R> scope, ScopedAction<T, R> action) {
    notNull(call, "call");
    notNull(mapper, "mapper");
    notNull(scope, "scope");
    notNull(action, "action");
    return engine.executeSingleCommit(policy, call, mapper, scope, action);
  }

  /**
   * Claims the call once, without waiting. On {@link ClaimOutcome.Acquired} the caller holds the
   * key and must {@link #complete}, {@link #release} or {@link #markUnknown} it. A claim answered
   * over a renewal period after it was sent has its lease confirmed first (claimed again when
   * another attempt took the key over meanwhile).
   *
   * @return the outcome
   * @throws StoreUnavailableException if the claim could not be written, or a late claim's lease
   *     not confirmed (nothing ran); {@link IdempotencyException} when the gate closed meanwhile,
   *     or a late claim's key was taken over three times running (nothing ran)
   * @throws InvalidArgumentsException if the arguments cannot be hashed
   */
  public ClaimOutcome claim(ToolCall call) {
    return engine.claim(policy, notNull(call, "call"));
  }

  /**
   * Stores the result of an acquired claim for replay.
   *
   * @param result the result bytes (encoded by the codec before storing)
   * @param failure true to store it as a failure result
   * @return false when another attempt took the lease over: nothing was stored
   * @throws ResultTooLargeException if the encoded result is over the limit; the key is then fenced
   *     with a not-stored marker, not freed
   * @throws StoreUnavailableException if the store could not be written
   */
  public boolean complete(ClaimOutcome.Acquired claim, byte[] result, boolean failure) {
    return engine.complete(policy, notNull(claim, "claim"), notNull(result, "result"), failure);
  }

  /**
   * Releases an acquired claim (deletes its row), so that a retry runs the action again.
   *
   * @return false when another attempt took the lease over: nothing was deleted
   */
  public boolean release(ClaimOutcome.Acquired claim) {
    return engine.release(notNull(claim, "claim"));
  }

  /**
   * Extends an acquired claim's lease (a heartbeat for long actions).
   *
   * @param lease the new lease from the store's now, at least 1 ms
   * @return false when another attempt took the lease over
   */
  public boolean extendLease(ClaimOutcome.Acquired claim, Duration lease) {
    return engine.extendLease(notNull(claim, "claim"), Checks.positiveMillis(lease, "lease"));
  }

  /**
   * Fences an acquired claim as "outcome unknown": retries ask the policy's reconciler, and are
   * refused until it, or an operator ({@link #resolveUnknown}), settles the key, or until the
   * policy's {@linkplain GatePolicy#unknownFence() unknown fence} runs out. The lease running out
   * does not free it.
   *
   * @return false when another attempt took the lease over
   */
  public boolean markUnknown(ClaimOutcome.Acquired claim) {
    return engine.markUnknown(policy, notNull(claim, "claim"));
  }

  /**
   * Settles a key whose outcome is unknown, for an operator who found out (in the payment
   * provider's dashboard, say) what the policy's {@link Reconciler} could not: with {@link
   * Reconciler.Verdict#happened} the result is replayed to retries (for this gate's retention, or
   * longer if the row had longer left); with {@link Reconciler.Verdict#notHappened} the fence is
   * lifted and a retry runs the action. Such a row is fenced as unknown, in progress with its lease
   * run out on the store's clock (its process died, or its gate closed first), or held by a
   * settlement that could not confirm its writes. Each write is conditional on the row's token.
   *
   * @param id the key to settle
   * @param verdict happened (with the result bytes, as the tool's {@link ResultMapper} writes them)
   *     or not happened
   * @return true when settled; false when there is nothing to settle, or the row changed since it
   *     was read (nothing is written: the row stays as the change left it)
   * @throws IllegalArgumentException for {@link Reconciler.Verdict.StillUnknown}
   * @throws IllegalStateException if the store does not honour {@code ClaimRequest.replacing}
   * @throws ResultTooLargeException if the result is over the policy's limit: nothing written
   * @throws StoreUnavailableException if the store could not be read or written
   */
  public boolean resolveUnknown(ClaimId id, Reconciler.Verdict verdict) {
    return engine.resolveUnknown(policy, notNull(id, "id"), notNull(verdict, "verdict"));
  }

  /** The stored row for (tenant, tool, key), or empty: "did we refund ord_9f2 twice?" */
  public Optional<ClaimRecord> find(ClaimId id) {
    return engine.find(notNull(id, "id"));
  }

  /** Builds a gate; every setter checks its argument. */
  public static final class Builder {
    private final IdempotencyStore store;
    private GatePolicy policy = GatePolicy.defaults();
    private ResultCodec codec = ResultCodec.identity();
    private final List<GateListener> listeners = new ArrayList<>();
    private InstantSource clock = InstantSource.system();
    private ScheduledExecutorService scheduler;
    private Executor executor;
    private Ticker ticker = Ticker.SYSTEM;
    private Duration drainTimeout = Duration.ofSeconds(10);

    private Builder(IdempotencyStore store) {
      this.store = store;
    }

    /**
     * @param policy the default policy of the gate
     */
    public Builder policy(GatePolicy policy) {
      this.policy = notNull(policy, "policy");
      return this;
    }

    /**
     * @param codec transforms result bytes into and out of the store
     */
    public Builder codec(ResultCodec codec) {
      this.codec = notNull(codec, "codec");
      return this;
    }

    /**
     * @param listener told of every decision; may be called more than once to add several
     */
    public Builder listener(GateListener listener) {
      listeners.add(notNull(listener, "listener"));
      return this;
    }

    /**
     * @param clock the application's clock, which stamps events ({@link GateEvent#at()}); the
     *     system clock by default. No decision uses it: expiry, leases and takeovers follow the
     *     store's clock ({@link IdempotencyStore#now()}), so a server whose clock is off by hours
     *     decides as the others do. Waiting uses {@link System#nanoTime()}.
     */
    public Builder clock(InstantSource clock) {
      this.clock = notNull(clock, "clock");
      return this;
    }

    /**
     * @param scheduler where the gate times its own work: one renewal task per lease setting (each
     *     renewing every running action of the store in one call per period), the deadline of each
     *     renewal try, and the tries of a fence the store refused (see {@link
     *     GateEvent.Type#STORE_FAILED}). The store calls themselves run on the {@linkplain
     *     #executor executor}, never here, so one thread is enough. By default the gate starts one
     *     daemon thread of its own on first use, which {@link IdempotencyGate#close()} stops; a
     *     scheduler given here is the caller's to stop. Give it no work of the tools': a renewal
     *     must never wait behind them.
     */
    public Builder scheduler(ScheduledExecutorService scheduler) {
      this.scheduler = notNull(scheduler, "scheduler");
      return this;
    }

    /**
     * @param executor where the gate's own store calls run: renewal tries, the check of a lease
     *     before an action starts, and a refused fence's tries. Each may block up to a renewal
     *     try's deadline (longer on a store that keeps none: at most four tries of one lease
     *     setting wait at once), so give it threads enough and no work of the tools'; one that
     *     refuses a task leaves that lease unrenewed for the moment, as a store that does not
     *     answer would. By default the gate uses a pool of daemon threads of its own ({@code
     *     mcpgate-lease-renewal-N}, ended after a minute idle), which {@link
     *     IdempotencyGate#close()} stops; an executor given here is the caller's to stop.
     */
    public Builder executor(Executor executor) {
      this.executor = notNull(executor, "executor");
      return this;
    }

    /**
     * @param timeout how long {@link IdempotencyGate#close()} waits for running calls, their leases
     *     renewed, before it stops renewing them; 10 s by default, zero for no wait
     */
    public Builder drainTimeout(Duration timeout) {
      this.drainTimeout = Checks.notNegative(timeout, "drainTimeout");
      return this;
    }

    /** Elapsed time and waits, for a deterministic simulation (package-private: not API). */
    Builder ticker(Ticker ticker) {
      this.ticker = notNull(ticker, "ticker");
      return this;
    }

    /**
     * @return the gate
     */
    public IdempotencyGate build() {
      return new IdempotencyGate(
          new GateEngine(
              store,
              codec,
              List.copyOf(listeners),
              clock,
              scheduler,
              executor,
              ticker,
              drainTimeout),
          policy,
          true);
    }
  }
}
