package dev.mcpgate.client;

import io.modelcontextprotocol.spec.McpError;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
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
  private Executed known = Executed.NO;
  private AttemptFailure last;

  Attempts(RetryPolicy policy, IntentKey key, String tool) {
    this.policy = policy;
    this.key = key;
    this.tool = tool;
  }

  IntentKey key() {
    return key;
  }

  /** An attempt starts. */
  void begin() {
    attempts++;
  }

  /** The server answered the attempt with a result. */
  Next answered(CallToolResult result) {
    GateError error = GateError.of(result).orElse(null);
    if (error == null) {
      return new Stop(new CallOutcome.Completed(key, result, replayed(result), attempts));
    }
    known = known.and(error.executed());
    if (error.retryWithSameKey()) {
      return retry(new AttemptFailure.AskedToRetry(error), error.retryAfter());
    }
    if (error.executed() == Executed.NO) {
      return new Stop(new CallOutcome.Refused(key, error, attempts));
    }
    LOG.info(
        "{} with key {}: the server says the outcome is unknown ({}); not retried",
        tool,
        key,
        error.type());
    return new Stop(new CallOutcome.OutcomeUnknown(key, error.executed(), error, attempts));
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
    McpError answer = jsonRpcError(failure);
    if (answer != null && answer.getJsonRpcError() != null) {
      var e = answer.getJsonRpcError();
      return new Stop(
          new CallOutcome.ErrorAnswer(
              key,
              e.code() == null ? 0 : e.code(),
              e.message() == null ? "" : e.message(),
              attempts));
    }
    if (sent) {
      known = known.and(Executed.UNKNOWN);
      if (!retrySafe) {
        last = new AttemptFailure.NoAnswer(failure);
        return giveUp(
            "at once: the tool does not declare idempotentHint, so a retry could act twice");
      }
    }
    return retry(new AttemptFailure.NoAnswer(failure), Duration.ZERO);
  }

  /** The caller's thread was interrupted while waiting to retry: stop now. */
  CallOutcome interrupted() {
    LOG.info("{} with key {}: interrupted while waiting to retry", tool, key);
    return new CallOutcome.GaveUp(key, known, last, attempts);
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
    LOG.info(
        "{} with key {}: gave up {} ({}); whether it took effect: {}",
        tool,
        key,
        when,
        describe(last),
        known);
    return new Stop(new CallOutcome.GaveUp(key, known, last, attempts));
  }

  private static String describe(AttemptFailure failure) {
    if (failure instanceof AttemptFailure.AskedToRetry a) {
      return "asked to retry: " + a.error().type();
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
