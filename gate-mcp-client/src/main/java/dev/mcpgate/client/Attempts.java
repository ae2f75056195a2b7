package dev.mcpgate.client;

import io.modelcontextprotocol.spec.McpError;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.IntSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The rules of one intent's attempts, apart from how they are sent (blocking or reactive): after
 * each attempt, whether to stop with an outcome or to retry, and after how long. One instance per
 * intent; the key never changes.
 */
final class Attempts {
  private static final Logger LOG = LoggerFactory.getLogger(Attempts.class);

  /** What to do after an attempt. */
  sealed interface Next {}

  /** Stop, with this outcome. */
  record Stop(CallOutcome outcome) implements Next {}

  /** Send the same request again after {@code delay}. */
  record Retry(Duration delay) implements Next {}

  private final RetryPolicy policy;
  private final IntentKey key;
  private final String tool;
  private final long startNanos = System.nanoTime();
  private int attempts;
  private Executed known;
  private AttemptFailure last;
  private boolean refreshDue;
  private boolean sent;
  private int sends;
  private KeyPlacement claimed;
  private final IntSupplier sentByAll;

  Attempts(RetryPolicy policy, IntentKey key, String tool) {
    this(policy, key, tool, null, null);
  }

  /**
   * @param sentBefore when an earlier run of the same intent (an earlier subscription) sent an
   *     attempt whose answer this run will not see, the placement it was sent under: the effect is
   *     then not known to be NO, the tool's definition is listed again before this run sends
   *     anything, and this run sends only under a placement that gates the same claim; null when
   *     nothing was sent before
   * @param sentByAll how many attempts every run of this intent (every subscription) sent so far,
   *     this one's included; null when this run is the intent's only one. Every outcome is decided
   *     knowing it: once others sent, their attempts may have run, and nothing this run saw says
   *     they did not
   */
  Attempts(
      RetryPolicy policy,
      IntentKey key,
      String tool,
      KeyPlacement sentBefore,
      IntSupplier sentByAll) {
    this.policy = policy;
    this.key = key;
    this.tool = tool;
    this.sentByAll = sentByAll;
    boolean before = sentBefore != null;
    this.known = before ? Executed.UNKNOWN : Executed.NO;
    this.refreshDue = before;
    this.sent = before;
    this.claimed = sentBefore;
  }

  IntentKey key() {
    return key;
  }

  /** An attempt starts. */
  void begin() {
    attempts++;
  }

  /**
   * An attempt is about to be sent under this placement: it must gate the call under the claim the
   * intent's earlier sent attempts were gated under (the tool's key source may have changed since,
   * in a redeploy or in the cache another intent's listing fills). Another claim would be a new
   * one: the call could run again.
   *
   * @param arguments the call's arguments, without the key
   * @return null to send it; else the intent's end
   */
  Next claim(KeyPlacement placement, Map<String, ?> arguments) {
    if (claimed == null || claimed.equals(placement)) {
      return null;
    }
    KeyPlacement.Claim earlier = claimed.claim(arguments);
    if (earlier != null && earlier.equals(placement.claim(arguments))) {
      return null;
    }
    known = known.and(Executed.UNKNOWN);
    if (last == null) {
      last =
          new AttemptFailure.NoAnswer(
              new IllegalStateException(
                  "an earlier run of this intent sent " + tool + " and saw no answer"));
    }
    return giveUp(
        "without sending again: the tool's key source changed since an attempt was sent ("
            + earlier
            + ", now "
            + placement.claim(arguments)
            + "), so a retry would not be gated under the same key");
  }

  /** The attempt's request, built under this placement, is about to be sent. */
  void sending(KeyPlacement placement) {
    sent = true;
    sends++;
    if (claimed == null) {
      claimed = placement;
    }
  }

  /**
   * @return true once a request of this intent may have reached the server (in this run, or an
   *     earlier one)
   */
  boolean anySent() {
    return sent;
  }

  /**
   * Before an outcome is decided: when another run of this intent (a concurrent subscription) sent
   * an attempt too, whose answer this run does not see, it may have run, so the effect is no longer
   * known to be NO, and a refusal or error this run is given speaks for its own attempt only.
   */
  private void othersSent() {
    if (sentByAll != null && sentByAll.getAsInt() > sends) {
      othersMayHaveRun();
    }
  }

  private void othersMayHaveRun() {
    known = known.and(Executed.UNKNOWN);
    if (last == null) {
      last =
          new AttemptFailure.NoAnswer(
              new IllegalStateException(
                  "a concurrent subscription of this intent sent "
                      + tool
                      + "; its answer is not this one's"));
    }
  }

  /**
   * @return true when an answer was lost since the tool's definition was last listed: list it again
   *     (bypassing the cache) before the next attempt is sent
   */
  boolean refreshDue() {
    return refreshDue;
  }

  /**
   * The tool's definition was listed again before a retry.
   *
   * @param retrySafe whether it still says a call sent again is safe
   * @return null to go on with the attempt; else the intent's end: the tool is no longer retry-safe
   *     and an earlier attempt may have run
   */
  Next refreshed(boolean retrySafe) {
    refreshDue = false;
    if (retrySafe) {
      return null;
    }
    if (last == null) {
      last =
          new AttemptFailure.NoAnswer(
              new IllegalStateException(
                  "an earlier run of this intent sent " + tool + " and saw no answer"));
    }
    return giveUp(
        "before a retry: the tool's definition, listed again, no longer declares a retry safe");
  }

  /**
   * An earlier run of this intent (an earlier subscription) already sent a call of this tool, which
   * is not retry-safe: it is not sent again.
   */
  CallOutcome sentByAnEarlierRun() {
    known = known.and(Executed.UNKNOWN);
    last =
        new AttemptFailure.NoAnswer(
            new IllegalStateException(
                "an earlier subscription of this intent already sent "
                    + tool
                    + ", which does not declare a retry safe; its answer is not this one's"));
    return ((Stop) giveUp("without sending: the call was sent before")).outcome();
  }

  /**
   * Another run of this intent (a concurrent subscription) sent an attempt after this run started
   * and before it sent its own: that attempt's answer is this run's lost answer. The effect is no
   * longer known to be NO, and the tool is listed again before this run sends.
   *
   * @param placement the placement the other run sent its attempt under
   * @return go on at once: list the tool again, then send (or not) as after a lost answer
   */
  Next sentByAnotherRun(KeyPlacement placement) {
    othersMayHaveRun();
    refreshDue = true;
    sent = true;
    if (claimed == null) {
      claimed = placement;
    }
    LOG.debug(
        "{} with key {}: a concurrent subscription sent it; listing the tool again", tool, key);
    return new Retry(Duration.ZERO);
  }

  /**
   * Something failed inside the client after an attempt was sent: the intent ends with what is
   * known of the effect, never with an exception that would lose the key.
   */
  CallOutcome internalFailure(RuntimeException failure) {
    if (last == null) {
      last = new AttemptFailure.NoAnswer(failure);
    }
    LOG.warn("{} with key {}: client failure after an attempt was sent", tool, key, failure);
    return ((Stop) giveUp("on a client failure (" + failure + ")")).outcome();
  }

  /** The server answered the attempt with a result. */
  Next answered(CallToolResult result) {
    othersSent();
    GateError error = GateError.of(result).orElse(null);
    if (error == null) {
      return new Stop(new CallOutcome.Completed(key, result, replayed(result), attempts));
    }
    known = known.and(error.executed());
    if (error.retryWithSameKey()) {
      return retry(new AttemptFailure.AskedToRetry(error), error.retryAfter());
    }
    if (known == Executed.NO) {
      return new Stop(new CallOutcome.Refused(key, error, attempts));
    }
    if (error.executed() == Executed.NO) {
      // an earlier attempt's answer was lost: this refusal does not speak for that attempt
      last = new AttemptFailure.RefusedAfterLostAnswer(error);
      return giveUp("on a refusal after a lost answer");
    }
    LOG.info(
        "{} with key {}: the server says the outcome is unknown ({}); not retried",
        tool,
        key,
        error.type());
    return new Stop(new CallOutcome.OutcomeUnknown(key, known, error, attempts));
  }

  /**
   * The attempt failed without a result: a JSON-RPC error answer ends the intent; anything else is
   * a lost answer, retried with the same key when the tool declares retries safe.
   *
   * @param sent false when the failure came before the call was sent (listing the tools)
   * @param retrySafe whether the tool declares that a call sent again is safe ({@code
   *     idempotentHint}); a lost answer of a tool that does not is never retried: without a gate,
   *     the second call would act again
   */
  Next failed(Throwable failure, boolean sent, boolean retrySafe) {
    othersSent();
    McpError answer = jsonRpcError(failure);
    if (answer != null && answer.getJsonRpcError() != null) {
      var e = answer.getJsonRpcError();
      int code = e.code() == null ? 0 : e.code();
      String message = e.message() == null ? "" : e.message();
      if (known != Executed.NO) {
        // an earlier attempt's answer was lost: this error says nothing of that attempt
        last = new AttemptFailure.ErrorAfterLostAnswer(code, message);
        return giveUp("on a JSON-RPC error after a lost answer");
      }
      return new Stop(new CallOutcome.ErrorAnswer(key, code, message, attempts));
    }
    if (sent) {
      known = known.and(Executed.UNKNOWN);
      if (!retrySafe) {
        last = new AttemptFailure.NoAnswer(failure);
        return giveUp(
            "at once: the tool does not declare a retry safe (idempotentHint, and a key the"
                + " server reads), so a retry could act twice");
      }
      refreshDue = true;
    }
    return retry(new AttemptFailure.NoAnswer(failure), Duration.ZERO);
  }

  /** The caller's thread was interrupted while waiting to retry: stop now. */
  CallOutcome interrupted() {
    othersSent();
    LOG.info("{} with key {}: interrupted while waiting to retry", tool, key);
    if (last == null) {
      last = new AttemptFailure.NoAnswer(new InterruptedException("interrupted"));
    }
    return new CallOutcome.GaveUp(key, known, last, Math.max(1, attempts));
  }

  /**
   * The wait before a retry could not be timed (the caller's scheduler refused it, as when it was
   * disposed): stop now, with what is known of the effect, never with an exception that would lose
   * the key.
   */
  CallOutcome waitFailed(Throwable failure) {
    othersSent();
    LOG.warn("{} with key {}: the wait before a retry failed; not retried", tool, key, failure);
    if (last == null) {
      last = new AttemptFailure.NoAnswer(failure);
    }
    return new CallOutcome.GaveUp(key, known, last, Math.max(1, attempts));
  }

  private Next retry(AttemptFailure failure, Duration serverWait) {
    last = failure;
    if (attempts >= policy.maxAttempts()) {
      return giveUp("after " + attempts + " attempts");
    }
    Duration wait = policy.backoff(attempts - 1, ThreadLocalRandom.current().nextDouble());
    if (serverWait.compareTo(wait) > 0) {
      wait = serverWait;
    }
    Duration elapsed = Duration.ofNanos(System.nanoTime() - startNanos);
    if (elapsed.plus(wait).compareTo(policy.deadline()) > 0) {
      return giveUp("at the deadline of " + policy.deadline());
    }
    LOG.debug(
        "{} with key {}: attempt {} not settled ({}); retrying with the same key in {} ms",
        tool,
        key,
        attempts,
        describe(failure),
        wait.toMillis());
    return new Retry(wait);
  }

  private Next giveUp(String when) {
    othersSent();
    LOG.info(
        "{} with key {}: gave up {} ({}); whether it took effect: {}",
        tool,
        key,
        when,
        describe(last),
        known);
    return new Stop(new CallOutcome.GaveUp(key, known, last, Math.max(1, attempts)));
  }

  private static String describe(AttemptFailure failure) {
    if (failure instanceof AttemptFailure.AskedToRetry a) {
      return "asked to retry: " + a.error().type();
    }
    if (failure instanceof AttemptFailure.RefusedAfterLostAnswer r) {
      return "refused after a lost answer: " + r.error().type();
    }
    if (failure instanceof AttemptFailure.ErrorAfterLostAnswer e) {
      return "JSON-RPC error " + e.code() + " after a lost answer: " + e.message();
    }
    return "no answer: " + ((AttemptFailure.NoAnswer) failure).cause();
  }

  private static boolean replayed(CallToolResult result) {
    Map<String, Object> meta = result.meta();
    return meta != null && Boolean.TRUE.equals(meta.get(IdempotentCalls.META_REPLAYED));
  }

  /**
   * @return the JSON-RPC error answer in the failure's causes (the SDK throws it as is, or wrapped
   *     by a blocking call), or null when the failure is not an answer
   */
  private static McpError jsonRpcError(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof McpError e) {
        return e;
      }
    }
    return null;
  }
}
