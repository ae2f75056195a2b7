package dev.mcpgate.core.internal.engine;

import dev.mcpgate.core.ClaimContext;
import dev.mcpgate.core.ClaimId;
import dev.mcpgate.core.ClaimOutcome;
import dev.mcpgate.core.FailureReason;
import dev.mcpgate.core.GateAction;
import dev.mcpgate.core.GateListener;
import dev.mcpgate.core.GatePolicy;
import dev.mcpgate.core.GateResult;
import dev.mcpgate.core.InvalidArgumentsException;
import dev.mcpgate.core.Reconciler;
import dev.mcpgate.core.RejectionReason;
import dev.mcpgate.core.ResultCodec;
import dev.mcpgate.core.ResultMapper;
import dev.mcpgate.core.ScopedAction;
import dev.mcpgate.core.ToolCall;
import dev.mcpgate.core.hash.ArgumentHasher;
import dev.mcpgate.core.spi.ClaimRecord;
import dev.mcpgate.core.spi.ClaimingScope;
import dev.mcpgate.core.spi.IdempotencyStore;
import dev.mcpgate.core.spi.StoredResult;
import dev.mcpgate.core.spi.TransactionScope;
import java.time.Duration;
import java.time.InstantSource;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The engine behind one {@code IdempotencyGate} and every gate its {@code withPolicy} makes: its
 * parts, wired once when the gate is built, and the path of a call through them (hash the
 * arguments, claim, then run the attempt, replay, or refuse). No part holds a policy: each call
 * brings the policy of the gate it came through, and it is passed down to the parts that use it.
 * The gate checks the arguments of each call and hands it here; nothing in this package knows the
 * gate. Not API: the gate is what users call.
 */
public final class GateEngine {
  private static final Logger LOG = LoggerFactory.getLogger(Events.LOGGER);

  private final IdempotencyStore store;
  private final LeaseRenewer renewer;
  private final LateFencer fencer;
  private final Claimer claimer;
  private final ClaimSteps steps;
  private final OperatorSettlement settlement;
  private final AttemptRunner runner;
  private final SingleCommitRunner singleCommit;
  private final StepClaimer stepClaimer;
  private final DirectScope direct;
  private final Events events;
  private final CallsInFlight calls;
  private final AtomicBoolean closeStarted = new AtomicBoolean();
  private final Duration drainTimeout;

  /**
   * @param listeners told of every decision (copied)
   * @param clock stamps events
   * @param scheduler where leases are renewed; null for a daemon thread of the engine's own
   * @param executor where the engine's own store calls run (renewal tries, late fences); null for
   *     daemon threads of the engine's own
   * @param ticker elapsed time and waits ({@link Ticker#SYSTEM} but in a simulation)
   * @param drainTimeout how long {@link #close} waits for running calls, their leases renewed
   */
  public GateEngine(
      IdempotencyStore store,
      ResultCodec codec,
      List<GateListener> listeners,
      InstantSource clock,
      ScheduledExecutorService scheduler,
      Executor executor,
      Ticker ticker,
      Duration drainTimeout) {
    this.store = store;
    this.calls = new CallsInFlight(ticker);
    this.drainTimeout = drainTimeout;
    this.renewer = new LeaseRenewer(store, scheduler, executor, ticker);
    this.fencer = new LateFencer(store, renewer);
    Events events = this.events = new Events(List.copyOf(listeners), clock);
    this.direct = new DirectScope(store);
    this.claimer =
        new Claimer(store, codec, events, new Reconciliation(store, codec, events), ticker, calls);
    ResultWriter writer = new ResultWriter(codec, events);
    this.steps = new ClaimSteps(store, events, writer, direct);
    FailureSettler settler = new FailureSettler(store, events, fencer);
    this.settlement = new OperatorSettlement(store, codec, events);
    this.runner =
        new AttemptRunner(
            steps,
            writer,
            events,
            direct,
            renewer,
            settler,
            new CommitResolver(store, events),
            calls);
    this.singleCommit = new SingleCommitRunner(steps, claimer, writer, events, ticker, calls);
    this.stepClaimer = new StepClaimer(claimer, renewer, settler, events, ticker, calls);
  }

  /**
   * Refuses new calls, waits (at most the drain timeout) for the running ones while their leases
   * are renewed, then stops renewing leases, for every gate over this engine.
   */
  public void close() {
    if (!closeStarted.compareAndSet(false, true)) {
      return; // closed, or being closed: the first close drains, then stops the renewals
    }
    int left = calls.drain(drainTimeout);
    if (left > 0) {
      LOG.warn(
          "closing the gate with {} call(s) still running (the drain timeout is {}; a call that"
              + " closes its own gate is not waited for): their leases are no longer renewed, so"
              + " once one runs out a retry elsewhere may take the key over and run the action"
              + " again",
          left,
          drainTimeout);
    }
    try {
      fencer.close(); // the fences still to be written get a last try while leases are renewed
    } finally {
      renewer.close();
    }
  }

  /**
   * @return how many running attempts are renewed now (for tests)
   */
  public int renewing() {
    return renewer.running();
  }

  /** Counts the call in; a closed or closing gate refuses it before anything runs. */
  private void enter() {
    if (!calls.enter()) {
      throw CallFailure.gateClosed(
          "the gate is closed; the action did not run; safe to retry", null);
    }
    if (renewer.isClosed()) {
      calls.exit();
      throw CallFailure.gateClosed(
          "the gate is closed; the action did not run; safe to retry", null);
    }
  }

  /** A plain action: it runs in the {@link DirectScope}, which has nothing to commit. */
  public <T> GateResult<T> execute(
      GatePolicy policy, ToolCall call, ResultMapper<T> mapper, GateAction<T> action) {
    return execute(policy, call, mapper, direct, (resource, ctx) -> action.run(ctx));
  }

  /**
   * Claims (waiting on another attempt), then runs the attempt, replays, or refuses; a failure the
   * engine decided on the way is the result too.
   */
  public <T, R> GateResult<T> execute(
      GatePolicy policy,
      ToolCall call,
      ResultMapper<T> mapper,
      TransactionScope<R> scope,
      ScopedAction<T, R> action) {
    String hash = null;
    Duration waited = Duration.ZERO;
    try {
      enter();
      try {
        String argsHash = hash = hash(policy, call);
        Claimer.Claimed claimed = claimer.claimWaiting(policy, call, argsHash);
        waited = claimed.waited();
        return claimed
            .outcome()
            .fold(
                acquired ->
                    Results.decided(
                        runner.run(
                            policy,
                            acquired,
                            new AttemptRunner.Arrived(
                                claimed.sentNanos(), call.keySource(), claimed.waited()),
                            mapper,
                            scope,
                            action),
                        argsHash,
                        call.keySource(),
                        claimed.waited()),
                replayed ->
                    readBack(replayed, mapper, argsHash, call.keySource(), claimed.waited()),
                refused ->
                    GateResult.Refused.of(refused, argsHash, call.keySource(), claimed.waited()));
      } finally {
        calls.exit();
      }
    } catch (CallFailure failure) {
      return told(failure, failure.result(call.id(), hash, call.keySource(), waited));
    }
  }

  /** Single-commit mode: claim, action and completion in one transaction of {@code scope}. */
  public <T, R> GateResult<T> executeSingleCommit(
      GatePolicy policy,
      ToolCall call,
      ResultMapper<T> mapper,
      ClaimingScope<R> scope,
      ScopedAction<T, R> action) {
    String hash = null;
    try {
      enter();
      try {
        String argsHash = hash = hash(policy, call);
        // one transaction's claim does not wait: its decision events say zero
        return singleCommit.run(
            policy,
            call,
            argsHash,
            mapper,
            scope,
            action,
            r -> readBack(r, mapper, argsHash, call.keySource(), Duration.ZERO));
      } finally {
        calls.exit();
      }
    } catch (CallFailure failure) {
      return told(failure, failure.result(call.id(), hash, call.keySource(), Duration.ZERO));
    }
  }

  /**
   * Tells the listeners of a failed call no decision event (acquired, replayed, refused, rejected)
   * was told for: nothing was claimed, a claim was released before its action started, or a stored
   * result could not be read. A failure after an action started is told by its attempt's events.
   */
  private <T> GateResult.Failed<T> told(CallFailure failure, GateResult.Failed<T> failed) {
    if (failure.isUntold()) {
      events.failed(failed);
    }
    return failed;
  }

  /**
   * Tells the listeners of a call refused before the gate (by a caller such as the MCP adapter).
   */
  public void rejected(String tool, RejectionReason rejection, String keySource) {
    events.rejected(tool, rejection, "refused before the gate: " + rejection, keySource);
  }

  /** Arguments that cannot be hashed are refused before any claim: a rejection, then a failure. */
  private String hash(GatePolicy policy, ToolCall call) {
    try {
      return ArgumentHasher.hash(call.arguments(), policy.ignoredArguments());
    } catch (InvalidArgumentsException e) {
      events.rejected(
          call.id().tool(),
          RejectionReason.ARGUMENTS_INVALID,
          "refused before the gate: the arguments have no canonical form",
          call.keySource());
      throw new CallFailure(
              FailureReason.ARGUMENTS_INVALID, GateResult.Effect.NO, false, null, e.getMessage(), e)
          .told(); // as the rejection above
    }
  }

  /** The replay's result, read for the caller; the replay is told once it was read. */
  private <T> GateResult<T> readBack(
      ClaimOutcome.Replayed replay,
      ResultMapper<T> mapper,
      String hash,
      String keySource,
      Duration waited) {
    StoredResult result = replay.result();
    T value;
    try {
      value = mapper.fromBytes(result.body());
    } catch (RuntimeException e) {
      throw Results.unreadable(replay.id(), result.body().length, "result mapper", e);
    }
    events.replayed(replay, keySource, waited);
    return new GateResult.Replayed<>(
        replay.id(),
        value,
        result.kind() == StoredResult.Kind.FAILURE,
        replay.attempt(),
        replay.firstExecutedAt(),
        replay.completedAt(),
        replay.settled(),
        hash,
        keySource,
        waited);
  }

  /**
   * Claims once, without waiting. The lease of a claim that answered late (a slow store, its own
   * retries, a pause) is confirmed before the caller may act on it, as before an action; one whose
   * key another attempt took over meanwhile claims again (twice at most), to tell the key as it is
   * now: replayed, in progress, or acquired anew.
   */
  public ClaimOutcome claim(GatePolicy policy, ToolCall call) {
    try {
      enter();
      try {
        return stepClaimer.claim(policy, call, hash(policy, call));
      } finally {
        calls.exit();
      }
    } catch (CallFailure failure) {
      told(failure, failure.result(call.id(), null, call.keySource(), Duration.ZERO));
      throw failure.toException(); // the step-by-step API has no result to carry it
    }
  }

  /** The step-by-step API's completion; see {@link ClaimSteps#complete}. */
  public boolean complete(
      GatePolicy policy, ClaimOutcome.Acquired claim, byte[] result, boolean failure) {
    return steps.complete(policy, claim, result, failure);
  }

  /** The step-by-step API's release; see {@link ClaimSteps#release}. */
  public boolean release(ClaimOutcome.Acquired claim) {
    return steps.release(claim);
  }

  /** The step-by-step API's lease extension; see {@link ClaimSteps#extendLease}. */
  public boolean extendLease(ClaimOutcome.Acquired claim, Duration lease) {
    return steps.extendLease(claim, lease);
  }

  /** The step-by-step API's fence as unknown; see {@link ClaimSteps#markUnknown}. */
  public boolean markUnknown(GatePolicy policy, ClaimOutcome.Acquired claim) {
    return steps.markUnknown(policy, claim);
  }

  /** An operator's settlement of an unknown outcome; see {@link OperatorSettlement}. */
  public boolean resolveUnknown(GatePolicy policy, ClaimId id, Reconciler.Verdict verdict) {
    return settlement.resolve(policy, id, verdict);
  }

  /**
   * @return the stored row of {@code id}, or empty
   */
  public Optional<ClaimRecord> find(ClaimId id) {
    return store.find(id);
  }

  /**
   * @return a context for {@code claim} (taken by {@link #claim}) whose lease nobody renews, as in
   *     single-commit mode; its {@link ClaimContext#extendLease} writes through {@link
   *     #extendLease}
   */
  public ClaimContext context(ClaimOutcome.Acquired claim) {
    return AttemptLease.context(steps, claim, Renewal.none(claim));
  }
}
