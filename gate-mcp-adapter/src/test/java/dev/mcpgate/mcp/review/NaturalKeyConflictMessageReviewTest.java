package dev.mcpgate.mcp.review;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.core.IdempotencyGate;
import dev.mcpgate.core.memory.InMemoryIdempotencyStore;
import dev.mcpgate.mcp.KeySource;
import dev.mcpgate.mcp.McpGate;
import dev.mcpgate.mcp.TenantResolver;
import dev.mcpgate.mcp.ToolPolicy;
import io.modelcontextprotocol.server.McpServerFeatures;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import io.modelcontextprotocol.spec.McpSchema.TextContent;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Review of 993e486 (ModelMessages, the conflict of a natural key). For a tool whose key sources
 * are the argument and then a natural key (the argument, when sent, wins), a natural-key conflict
 * now tells the model "Calls with the same values in the key's arguments are one request: resend
 * the original arguments to get the original result." That is untrue for this tool: a call with the
 * same values and an idempotency_key argument is a new request, and it runs. The message hides the
 * one way this tool offers to make the second request, and states a rule the tool does not follow.
 */
class NaturalKeyConflictMessageReviewTest {

  private static String text(CallToolResult r) {
    return ((TextContent) r.content().get(0)).text();
  }

  @Test
  void aNaturalKeyConflictDoesNotSayWhatTheToolDoesNotDo() {
    AtomicInteger runs = new AtomicInteger();
    McpServerFeatures.SyncToolSpecification gated =
        McpGate.builder(IdempotencyGate.builder(InMemoryIdempotencyStore.create()).build())
            .tenantResolver(TenantResolver.fixed("tests"))
            .build()
            .gate(
                McpServerFeatures.SyncToolSpecification.builder()
                    .tool(
                        McpSchema.Tool.builder(
                                "stop_session",
                                Map.of(
                                    "type",
                                    "object",
                                    "properties",
                                    Map.of(
                                        "session_id", Map.of("type", "string"),
                                        "reason", Map.of("type", "string"))))
                            .description("Stop a session.")
                            .build())
                    .callHandler(
                        (exchange, request) ->
                            CallToolResult.builder()
                                .addTextContent("stopped " + runs.incrementAndGet())
                                .build())
                    .build(),
                ToolPolicy.builder()
                    .keySources(KeySource.ARGUMENT, KeySource.NATURAL)
                    .naturalKey("session_id")
                    .build());

    gated
        .callHandler()
        .apply(
            null, new CallToolRequest("stop_session", Map.of("session_id", "s-1", "reason", "a")));
    CallToolResult conflict =
        gated
            .callHandler()
            .apply(
                null,
                new CallToolRequest("stop_session", Map.of("session_id", "s-1", "reason", "b")));
    CallToolResult withKey =
        gated
            .callHandler()
            .apply(
                null,
                new CallToolRequest(
                    "stop_session",
                    Map.of("session_id", "s-1", "reason", "b", "idempotency_key", "new-1")));

    assertThat(conflict.isError()).isTrue();
    assertThat(withKey.isError())
        .as("the same values with a new key argument: a new request, run: %s", text(withKey))
        .isNotEqualTo(Boolean.TRUE);
    assertThat(runs).hasValue(2);
    assertThat(text(conflict))
        .as("the refusal the model read")
        .doesNotContain("Calls with the same values in the key's arguments are one request")
        .doesNotContain("Use a new key") // a key made of the arguments cannot be made anew
        .contains("made from its arguments");
  }
}
