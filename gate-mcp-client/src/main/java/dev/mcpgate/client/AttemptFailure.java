package dev.mcpgate.client;

import static java.util.Objects.requireNonNull;

/** Why the last attempt of an intent that was given up on did not settle it. */
public sealed interface AttemptFailure {

  /**
   * No answer came: a timeout, an I/O error, a closed session. The call may have reached the server
   * and run.
   *
   * @param cause the failure, as the SDK client reported it
   */
  record NoAnswer(Throwable cause) implements AttemptFailure {
    /**
     * @throws NullPointerException if {@code cause} is null
     */
    public NoAnswer {
      requireNonNull(cause, "cause must not be null");
    }
  }

  /**
   * The server answered that the same call with the same key should be sent again (it is still
   * running, or the server's store was unreachable), and the retries ran out first.
   *
   * @param error the server's last answer
   */
  record AskedToRetry(GateError error) implements AttemptFailure {
    /**
     * @throws NullPointerException if {@code error} is null
     */
    public AskedToRetry {
      requireNonNull(error, "error must not be null");
    }
  }

  /**
   * After an earlier attempt's answer was lost (it may have run), a later attempt was refused with
   * {@code executed: no} and {@code retry_with_same_key: false} (forbidden, an unknown tenant, a
   * quota): the refusal speaks only for that attempt, so the intent is not told as "did not take
   * effect".
   *
   * @param error the server's refusal of the later attempt
   */
  record RefusedAfterLostAnswer(GateError error) implements AttemptFailure {
    /**
     * @throws NullPointerException if {@code error} is null
     */
    public RefusedAfterLostAnswer {
      requireNonNull(error, "error must not be null");
    }
  }

  /**
   * After an earlier attempt's answer was lost (it may have run), a later attempt was answered with
   * a JSON-RPC error, which says nothing of the earlier attempt.
   *
   * @param code the JSON-RPC error code
   * @param message the error's message
   */
  record ErrorAfterLostAnswer(int code, String message) implements AttemptFailure {
    /**
     * @throws NullPointerException if {@code message} is null
     */
    public ErrorAfterLostAnswer {
      requireNonNull(message, "message must not be null");
    }
  }
}
