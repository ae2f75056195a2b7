package dev.mcpgate.testkit;

import static java.util.Objects.requireNonNull;

import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import java.util.Objects;
import java.util.function.Function;
import java.util.function.Supplier;
import org.opentest4j.AssertionFailedError;

/**
 * Asserts that a merge rule does not depend on arrival order: two different calls that close the
 * same record (a stop from the phone, a stop from the laptop), run in both orders against fresh
 * state, must end in the same stored state.
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
    S one = fresh.get();
    client.callTool(first.apply(one));
    client.callTool(second.apply(one));
    Object firstThenSecond = state.apply(one);

    S two = fresh.get();
    client.callTool(second.apply(two));
    client.callTool(first.apply(two));
    Object secondThenFirst = state.apply(two);

    if (!Objects.equals(firstThenSecond, secondThenFirst)) {
      throw new AssertionFailedError(
          first.apply(one).name() + ": the end state depends on the" + " arrival order",
          firstThenSecond,
          secondThenFirst);
    }
  }
}
