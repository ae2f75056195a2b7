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
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Review finding (b5c9a10, ArgumentSnapshot.copied): the snapshot copies maps, collections and
 * object arrays, but passes a primitive array ({@code int[]}, {@code long[]}, {@code double[]},
 * {@code byte[]}) on as the caller's own object, which Jackson writes out element by element at
 * each attempt. A caller that changes such an array while the intent is under way (here while the
 * first attempt runs, whose answer is then lost) has the retry send other arguments: the server
 * refuses it as idempotency_key_conflict, although the first attempt ran and stored its result
 * (with a natural key over that argument, the retry is another intent and runs again). Same
 * interleaving as ArgumentSnapshotTest, with a nested {@code int[]}. Not a regression: the
 * one-level copy of 82ef12e has the same hole; the deep copy that claims to close it leaves it.
 */
class ArgumentSnapshotPrimitiveArrayReviewTest {
  private static final RetryPolicy FAST =
      RetryPolicy.builder()
          .maxAttempts(5)
          .initialBackoff(Duration.ofMillis(20))
          .maxBackoff(Duration.ofMillis(200))
          .deadline(Duration.ofSeconds(20))
          .build();

  @ParameterizedTest
  @EnumSource(Kind.class)
  void aNestedPrimitiveArrayChangedDuringTheIntentLeavesItsRetryAsTheFirstAttempt(Kind kind)
      throws Exception {
    int[] quantities = {1, 2};
    AtomicInteger runs = new AtomicInteger();
    SyncToolSpecification order =
        new SyncToolSpecification(
            McpSchema.Tool.builder("place_order", Map.of("type", "object")).build(),
            (exchange, request) -> {
              if (runs.incrementAndGet() == 1) {
                quantities[1] = 5; // the caller's array, changed meanwhile
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

      CallOutcome outcome =
          connected
              .caller()
              .call(
                  IntentKey.random(),
                  "place_order",
                  Map.of("skus", List.of("a", "b"), "line", Map.of("quantities", quantities)));

      assertThat(connected.droppedAnswers().getAsInt()).as("the first answer was lost").isOne();
      assertThat(runs).as("the order was placed once").hasValue(1);
      assertThat(outcome)
          .as("the retry sent the first attempt's arguments, so it replays, not conflicts")
          .isInstanceOfSatisfying(
              CallOutcome.Completed.class, c -> assertThat(c.replayed()).isTrue());
    }
  }
}
