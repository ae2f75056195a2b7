package dev.mcpgate.client;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.client.Servers.Connected;
import dev.mcpgate.client.Servers.Kind;
import dev.mcpgate.client.Servers.Wire;
import dev.mcpgate.core.IdempotencyGate;
import dev.mcpgate.core.memory.InMemoryIdempotencyStore;
import dev.mcpgate.mcp.ExactNumbers;
import dev.mcpgate.mcp.McpGate;
import dev.mcpgate.mcp.TenantResolver;
import dev.mcpgate.mcp.ToolPolicy;
import io.modelcontextprotocol.server.McpServerFeatures.SyncToolSpecification;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * An intent's arguments are taken as they are when it is called, at every depth: a caller that
 * changes a nested value while the intent is under way (here, while its first attempt runs, whose
 * answer is then lost) still has the retry send what the first attempt sent, and gets the replay.
 */
class ArgumentSnapshotTest {
  private static final RetryPolicy FAST =
      RetryPolicy.builder()
          .maxAttempts(5)
          .initialBackoff(Duration.ofMillis(20))
          .maxBackoff(Duration.ofMillis(200))
          .deadline(Duration.ofSeconds(20))
          .build();

  @ParameterizedTest
  @EnumSource(Kind.class)
  void aNestedValueChangedDuringTheIntentLeavesItsRetryAsTheFirstAttemptAndItReplays(Kind kind)
      throws Exception {
    List<Object> lines = new ArrayList<>(List.of(Map.of("sku", "a", "qty", 1)));
    Map<String, Object> address = new LinkedHashMap<>(Map.of("city", "Lyon"));
    placedOnceAndReplayed(
        kind,
        Map.of("lines", lines, "ship_to", Map.of("address", address)),
        () -> {
          lines.add(Map.of("sku", "b", "qty", 2));
          address.put("city", "Paris");
        });
  }

  /**
   * A review's finding: a primitive array ({@code int[]}, {@code byte[]}...) was passed on as the
   * caller's own object, and Jackson writes it out anew at each attempt.
   */
  @ParameterizedTest
  @EnumSource(Kind.class)
  void aNestedPrimitiveArrayChangedDuringTheIntentLeavesItsRetryAsTheFirstAttempt(Kind kind)
      throws Exception {
    int[] quantities = {1, 2};
    placedOnceAndReplayed(
        kind,
        Map.of("skus", List.of("a", "b"), "line", Map.of("quantities", quantities)),
        () -> quantities[1] = 5);
  }

  /**
   * Calls {@code place_order} once as an intent whose first answer is lost; its handler, on its
   * first run, changes the caller's objects ({@code change}).
   */
  private static void placedOnceAndReplayed(Kind kind, Map<String, ?> arguments, Runnable change)
      throws Exception {
    AtomicInteger runs = new AtomicInteger();
    SyncToolSpecification order =
        new SyncToolSpecification(
            McpSchema.Tool.builder("place_order", Map.of("type", "object")).build(),
            (exchange, request) -> {
              if (runs.incrementAndGet() == 1) {
                change.run(); // the caller's objects, changed meanwhile
              }
              return CallToolResult.builder().addTextContent("placed").build();
            });
    try (IdempotencyGate gate = IdempotencyGate.builder(InMemoryIdempotencyStore.create()).build();
        Connected connected =
            Servers.connect(
                Wire.STDIO,
                kind,
                List.of(
                    McpGate.builder(gate)
                        .tenantResolver(TenantResolver.fixed("test"))
                        .jsonMapper(ExactNumbers.jsonMapper())
                        .build()
                        .gate(order, ToolPolicy.defaults())),
                ExactNumbers.jsonMapper(),
                1,
                Duration.ofMillis(1500),
                FAST)) {

      CallOutcome outcome = connected.caller().call(IntentKey.random(), "place_order", arguments);

      assertThat(connected.droppedAnswers().getAsInt()).as("the first answer was lost").isOne();
      assertThat(runs).as("the order was placed once").hasValue(1);
      assertThat(outcome)
          .as("the retry sent the first attempt's arguments, so it replays, not conflicts")
          .isInstanceOfSatisfying(
              CallOutcome.Completed.class, c -> assertThat(c.replayed()).isTrue());
    }
  }
}
