package dev.mcpgate.testkit;

import static java.util.Objects.requireNonNull;

import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;
import java.util.function.Supplier;
import org.opentest4j.AssertionFailedError;

/**
 * Asserts that a merge rule does not depend on arrival order: two different calls that close the
 * same record (a stop from the phone, a stop from the laptop), run in both orders against fresh
 * state, must end in the same stored state. Each of the four calls must succeed: one that answers
 * an error (refused, or rejected by the tool) fails the check, since nothing ran to compare.
 *
 * <pre>{@code
 * ArrivalOrderCheck.assertSameEndState(client,
 *     () -> startNewSession(),                               // fresh state; returns its handle
 *     session -> stop(session, "14:05", "phone"),
 *     session -> stop(session, "14:20", "laptop"),
 *     session -> readSession(session));                      // the stored state to compare
 * }</pre>
 */
public final class ArrivalOrderCheck {
  private ArrivalOrderCheck() {}

  /**
   * @param client an initialized client of the server under test
   * @param fresh makes fresh state and returns a handle to it (a new session's id)
   * @param first the first call, for a given fresh state
   * @param second the second call, for a given fresh state
   * @param state reads the stored state to compare (its {@code equals} decides)
   * @param <S> the handle's type
   * @throws AssertionFailedError naming the tool, with both end states
   */
  public static <S> void assertSameEndState(
      McpSyncClient client,
      Supplier<S> fresh,
      Function<S, CallToolRequest> first,
      Function<S, CallToolRequest> second,
      Function<S, ?> state) {
    requireNonNull(client, "client must not be null");
    requireNonNull(fresh, "fresh must not be null");
    requireNonNull(first, "first must not be null");
    requireNonNull(second, "second must not be null");
    requireNonNull(state, "state must not be null");
    List<String> errors = new ArrayList<>();
    S one = fresh.get();
    send(client, first.apply(one), "the first call, sent first", errors);
    send(client, second.apply(one), "the second call, sent second", errors);
    Object firstThenSecond = state.apply(one);

    S two = fresh.get();
    send(client, second.apply(two), "the second call, sent first", errors);
    send(client, first.apply(two), "the first call, sent second", errors);
    Object secondThenFirst = state.apply(two);

    if (!errors.isEmpty()) {
      throw new AssertionFailedError(
          first.apply(one).name()
              + ": "
              + errors.size()
              + " of the 4 calls answered an error, so the end states compare calls that did not"
              + " run. Make the scenario's calls succeed (for a gated tool, give each its own"
              + " idempotency key):\n  "
              + String.join("\n  ", errors));
    }

    if (!Objects.equals(firstThenSecond, secondThenFirst)) {
      throw new AssertionFailedError(
          first.apply(one).name() + ": the end state depends on the" + " arrival order",
          firstThenSecond,
          secondThenFirst);
    }
  }

  /** Sends a call of the scenario; one that answers an error ran nothing to compare. */
  private static void send(
      McpSyncClient client, CallToolRequest request, String which, List<String> errors) {
    CallToolResult result = client.callTool(request);
    if (Boolean.TRUE.equals(result.isError())) {
      String type = Results.errorType(result);
      errors.add(
          which
              + " answered an error"
              + ("error".equals(type) ? "" : " (" + type + ")")
              + ": "
              + Results.describe(result));
    }
  }
}
