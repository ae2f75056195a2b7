package dev.mcpgate.core;

import java.time.Duration;
import java.time.Instant;
import java.util.function.Function;

/**
 * What {@link IdempotencyGate#execute} did with one call, as a value: the action was executed in
 * this call, a stored result was replayed, the call was refused, or it failed. Every outcome the
 * gate decides is one of these four, the action's own exception (an {@link Error} too) included, in
 * {@link Failed#cause()}; exceptions are left for programming errors (a null argument) and for an
 * {@link Error} of the gate's own parts (the mapper, the codec). A caller who prefers exceptions
 * calls {@link #orThrow()}, which throws an action's {@code Error} on.
 *
 * @param <T> the action's result type
 */
public sealed interface GateResult<T> {

  /**
   * @return the claim's identity
   */
  ClaimId id();

  /**
   * @return the versioned canonical hash of the call's arguments, as the gate computed and compared
   *     it; null only on a result built without one (by the old constructors)
   */
  String argsHash();

  /**
   * @return the attempt that ran, or whose result was replayed (1, or more after takeovers); 0 for
   *     a refusal, and for a failure before any attempt of this call ran
   */
  int attempt();

  /**
   * @return where the call's key came from ({@code argument}, {@code meta}, {@code natural}, {@code
   *     header}) when the caller said ({@link ToolCall#keySource()}); null otherwise
   */
  String keySource();

  /**
   * @return how long the call waited on another attempt with the same key before it was decided, as
   *     its decision's {@link GateEvent#waited()} says; zero when it did not wait
   */
  Duration waited();

  /**
   * The one exhaustive switch over the four results, for Java 17 (which has no pattern switch over
   * sealed types): each result calls the function of its own case. A fifth case would add a
   * parameter here, so every caller that does not handle it stops compiling.
   *
   * @param executed what to make of an {@link Executed} result
   * @param replayed what to make of a {@link Replayed} result
   * @param refused what to make of a {@link Refused} result
   * @param failed what to make of a {@link Failed} result
   * @return what the function of this result's case made of it
   */
  <R> R fold(
      Function<? super Executed<T>, ? extends R> executed,
      Function<? super Replayed<T>, ? extends R> replayed,
      Function<? super Refused<T>, ? extends R> refused,
      Function<? super Failed<T>, ? extends R> failed);

  /**
   * For callers who prefer exceptions: the value of an executed or replayed call; a refusal or a
   * failure thrown as a {@link GateOutcomeException} that carries this result, except that the
   * action's own exception ({@link FailureReason#ACTION_FAILED}, {@link
   * FailureReason#OUTCOME_UNKNOWN}) is rethrown as it is (a checked one wrapped in an {@link
   * ActionFailedException}), and so is an action's {@link Error} whatever the reason.
   *
   * @return the action's result, run now or replayed
   * @throws GateOutcomeException when the call was refused, or failed in the gate
   */
  default T orThrow() {
    return fold(
        Executed::value,
        Replayed::value,
        refused -> {
          throw new GateOutcomeException(refused.message(), null, refused);
        },
        failed -> {
          Throwable cause = failed.cause();
          if (cause instanceof Error e) {
            throw e; // the action's own, passed on
          }
          if (failed.reason() == FailureReason.ACTION_FAILED
              || failed.reason() == FailureReason.OUTCOME_UNKNOWN) {
            if (cause instanceof RuntimeException e) {
              throw e;
            }
            throw new ActionFailedException(failed.message(), cause);
          }
          throw new GateOutcomeException(failed.message(), cause, failed);
        });
  }

  /**
   * Whether a call took effect, as far as the gate knows: what a {@link Failed} result says, and
   * what the MCP adapter tells a model as {@code executed}.
   */
  enum Effect {
    /**
     * Nothing of the call took effect: the action did not run, or its transaction was rolled back,
     * or it threw an exception that the policy reads as "did nothing": by default any but an {@link
     * OutcomeUnknownException} or an interruption. An action that may have acted before it throws
     * should throw an exception that {@link GatePolicy.Builder#outcomeUnknownWhen} names, so that
     * its effect is {@link #UNKNOWN} and its key stays fenced.
     */
    NO,
    /** The call took effect. */
    YES,
    /** It may have taken effect, or not; nobody can tell now. */
    UNKNOWN
  }

  /** What happened to an executed attempt's result. */
  enum Completion {
    /** The result is stored and will be replayed. */
    STORED,
    /** The result was a failure and the claim was released, per policy: a retry runs again. */
    RELEASED,
    /**
     * Another attempt had taken over the lease: this result was not stored (the other attempt's
     * will be). The action may have run twice; the downstream key is how to make that harmless.
     */
    LEASE_LOST,
    /**
     * The action succeeded but storing its result failed (the store went away). The claim was not
     * freed; listeners were told ({@link GateEvent.Type#STORE_FAILED}).
     */
    STORE_FAILED
  }

  /**
   * The action ran in this call.
   *
   * @param id the claim
   * @param value the action's result
   * @param claim the claim it ran under
   * @param completion what happened to the result
   * @param argsHash the arguments' hash
   * @param keySource where the key came from, or null
   * @param waited how long it waited on another attempt
   */
  record Executed<T>(
      ClaimId id,
      T value,
      ClaimOutcome.Acquired claim,
      Completion completion,
      String argsHash,
      String keySource,
      Duration waited)
      implements GateResult<T> {

    /** Defaults a missing wait to zero. */
    public Executed {
      waited = waited == null ? Duration.ZERO : waited;
    }

    /**
     * @return {@code executed.apply(this)}
     */
    @Override
    public <R> R fold(
        Function<? super Executed<T>, ? extends R> executed,
        Function<? super Replayed<T>, ? extends R> replayed,
        Function<? super Refused<T>, ? extends R> refused,
        Function<? super Failed<T>, ? extends R> failed) {
      return executed.apply(this);
    }

    /** Without the call's hash, key source and wait. */
    public Executed(ClaimId id, T value, ClaimOutcome.Acquired claim, Completion completion) {
      this(id, value, claim, completion, null, null, Duration.ZERO);
    }

    /**
     * @return the attempt that ran: {@code claim().attempt()}
     */
    @Override
    public int attempt() {
      return claim.attempt();
    }
  }

  /**
   * The call had completed before: the stored result, and nothing ran.
   *
   * @param id the claim
   * @param value the stored result, read back through the result mapper
   * @param failure true when the stored result is a failure stored per policy
   * @param attempt the attempt that produced it (1, or more after takeovers)
   * @param firstExecutedAt when the attempt that produced it claimed the key
   * @param completedAt when its result was stored
   * @param settled true when the result was stored under an operator's settlement that took the key
   *     over from an attempt whose lease had run out ({@link IdempotencyGate#resolveUnknown}), by
   *     its verdict or by a call's reconciler: then {@code attempt} and {@code firstExecutedAt} are
   *     the takeover's, and the effect ran in an earlier attempt, at a time not kept
   * @param argsHash the arguments' hash (the same as the stored one's)
   * @param keySource where the key came from, or null
   * @param waited how long it waited on another attempt
   */
  record Replayed<T>(
      ClaimId id,
      T value,
      boolean failure,
      int attempt,
      Instant firstExecutedAt,
      Instant completedAt,
      boolean settled,
      String argsHash,
      String keySource,
      Duration waited)
      implements GateResult<T> {

    /** Defaults a missing wait to zero. */
    public Replayed {
      waited = waited == null ? Duration.ZERO : waited;
    }

    /**
     * @return {@code replayed.apply(this)}
     */
    @Override
    public <R> R fold(
        Function<? super Executed<T>, ? extends R> executed,
        Function<? super Replayed<T>, ? extends R> replayed,
        Function<? super Refused<T>, ? extends R> refused,
        Function<? super Failed<T>, ? extends R> failed) {
      return replayed.apply(this);
    }

    /** A result stored by the attempt that ran, without the call's hash, key source and wait. */
    public Replayed(
        ClaimId id,
        T value,
        boolean failure,
        int attempt,
        Instant firstExecutedAt,
        Instant completedAt) {
      this(
          id,
          value,
          failure,
          attempt,
          firstExecutedAt,
          completedAt,
          false,
          null,
          null,
          Duration.ZERO);
    }
  }

  /**
   * The call was refused and nothing ran.
   *
   * @param id the claim
   * @param reason why
   * @param retryAfter when a retry may succeed; zero when a retry with this key never will
   * @param message a sentence for Java callers and operators
   * @param argsHash the arguments' hash (for a conflict, this call's, not the stored one)
   * @param keySource where the key came from, or null
   * @param waited how long it waited on another attempt
   */
  record Refused<T>(
      ClaimId id,
      RefusalReason reason,
      Duration retryAfter,
      String message,
      String argsHash,
      String keySource,
      Duration waited)
      implements GateResult<T> {

    /** Defaults a missing wait to zero. */
    public Refused {
      waited = waited == null ? Duration.ZERO : waited;
    }

    /**
     * @return {@code refused.apply(this)}
     */
    @Override
    public <R> R fold(
        Function<? super Executed<T>, ? extends R> executed,
        Function<? super Replayed<T>, ? extends R> replayed,
        Function<? super Refused<T>, ? extends R> refused,
        Function<? super Failed<T>, ? extends R> failed) {
      return refused.apply(this);
    }

    /** Without the call's hash, key source and wait. */
    public Refused(ClaimId id, RefusalReason reason, Duration retryAfter, String message) {
      this(id, reason, retryAfter, message, null, null, Duration.ZERO);
    }

    /**
     * @return 0: no attempt of this call ran
     */
    @Override
    public int attempt() {
      return 0;
    }

    /**
     * @param refused a claim's refusal
     * @param argsHash the call's arguments' hash
     * @param keySource where its key came from, or null
     * @param waited how long it waited on another attempt
     * @return the same refusal as the result of that call
     */
    public static <T> Refused<T> of(
        ClaimOutcome.Refused refused, String argsHash, String keySource, Duration waited) {
      return new Refused<>(
          refused.id(),
          refused.reason(),
          refused.retryAfter(),
          refused.message(),
          argsHash,
          keySource,
          waited);
    }
  }

  /**
   * The call failed in the gate: the store could not be reached, a commit failed, the lease was
   * lost, the outcome is unknown, the action threw, or the result could not be stored or read back.
   * The reason fixes what is known of the effect and whether a retry with the same key is safe.
   *
   * @param id the claim
   * @param reason why
   * @param effect whether the call took effect, as far as the gate knows
   * @param retrySafe whether sending the same call with the same key again is safe and may succeed
   *     (it never runs the action twice)
   * @param message a sentence for Java callers and operators; it names the claim, so it is not for
   *     the end user's eyes
   * @param cause the failure underneath (the action's own exception for {@link
   *     FailureReason#ACTION_FAILED}), or null
   * @param attempt the attempt that ran, or 0 when none of this call did
   * @param argsHash the arguments' hash, or null when they could not be hashed
   * @param keySource where the key came from, or null
   * @param waited how long it waited on another attempt
   */
  record Failed<T>(
      ClaimId id,
      FailureReason reason,
      Effect effect,
      boolean retrySafe,
      String message,
      Throwable cause,
      int attempt,
      String argsHash,
      String keySource,
      Duration waited)
      implements GateResult<T> {

    /** Checks the reason and effect; defaults a missing wait to zero. */
    public Failed {
      if (reason == null || effect == null) {
        throw new IllegalArgumentException(
            "a failure needs a reason and an effect, was " + reason + " and " + effect);
      }
      waited = waited == null ? Duration.ZERO : waited;
    }

    /**
     * @return {@code failed.apply(this)}
     */
    @Override
    public <R> R fold(
        Function<? super Executed<T>, ? extends R> executed,
        Function<? super Replayed<T>, ? extends R> replayed,
        Function<? super Refused<T>, ? extends R> refused,
        Function<? super Failed<T>, ? extends R> failed) {
      return failed.apply(this);
    }
  }
}
