package dev.mcpgate.mcp.trial;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.core.IdempotencyGate;
import dev.mcpgate.core.memory.InMemoryIdempotencyStore;
import dev.mcpgate.mcp.KeySource;
import dev.mcpgate.mcp.McpGate;
import dev.mcpgate.mcp.McpGateErrors;
import dev.mcpgate.mcp.TenantResolver;
import dev.mcpgate.mcp.ToolPolicy;
import io.modelcontextprotocol.server.McpServerFeatures.SyncToolSpecification;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * docs/adapters.md, row "a gated tool that cannot be gated as declared": the SDK adapter throws
 * "exception at wrap time" (the Quarkus extension fails the build for the same declarations: a
 * natural key that names no argument of the tool, a gated tool marked readOnlyHint=true).
 *
 * <p>What happens: {@code McpGate.gate(spec, policy)} checks neither. A natural key naming an
 * argument the tool does not have is wrapped without a word, and every call to the tool is then
 * refused {@code idempotency_key_required} (the handler can never run); a read-only tool is
 * returned ungated with a WARN line.
 *
 * <p>Since fixed: a natural key that names no declared argument is an exception at wrap time. A
 * read-only tool is still returned ungated, as mcp-adapter.md says and adapters.md now says too.
 */
class UngatableToolIsWrappedWithoutAnErrorTest {
  private final McpGate mcpGate =
      McpGate.builder(IdempotencyGate.builder(InMemoryIdempotencyStore.create()).build())
          .tenantResolver(TenantResolver.fixed("trial"))
          .build();
  private final AtomicInteger runs = new AtomicInteger();

  private SyncToolSpecification stopSession(McpSchema.ToolAnnotations annotations) {
    Map<String, Object> schema =
        Map.of(
            "type",
            "object",
            "properties",
            Map.of("session_id", Map.of("type", "string")),
            "required",
            java.util.List.of("session_id"));
    return SyncToolSpecification.builder()
        .tool(
            McpSchema.Tool.builder("stop_session", schema)
                .description("Stop a session.")
                .annotations(annotations)
                .build())
        .callHandler(
            (exchange, request) ->
                CallToolResult.builder()
                    .addTextContent("stopped " + runs.incrementAndGet())
                    .build())
        .build();
  }

  @Test
  void aNaturalKeyThatNamesNoArgumentOfTheToolIsAnExceptionAtWrapTime() {
    // "sessionId" where the tool's argument is "session_id": a typo the Quarkus build names
    ToolPolicy typo =
        ToolPolicy.builder().keySources(KeySource.NATURAL).naturalKey("sessionId").build();

    SyncToolSpecification[] gated = new SyncToolSpecification[1];
    Throwable thrown =
        org.assertj.core.api.Assertions.catchThrowable(
            () -> gated[0] = mcpGate.gate(stopSession(null), typo));

    if (thrown == null) {
      // what the doc's promise guards against: the tool can never run
      CallToolResult call =
          gated[0]
              .callHandler()
              .apply(null, new CallToolRequest("stop_session", Map.of("session_id", "s-1")));
      @SuppressWarnings("unchecked")
      Map<String, Object> error =
          (Map<String, Object>) ((Map<String, Object>) call.structuredContent()).get("error");
      assertThat(error).containsEntry("type", McpGateErrors.KEY_REQUIRED);
      assertThat(runs).hasValue(0);
    }
    assertThat(thrown)
        .as("adapters.md: a tool that cannot be gated as declared is an exception at wrap time")
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("sessionId");
  }

  @Test
  void aReadOnlyToolDeclaredGatedIsReturnedUngatedAsTheDocsSay() {
    // adapters.md and mcp-adapter.md now say so: a read-only tool has nothing to gate
    SyncToolSpecification readOnly =
        stopSession(new McpSchema.ToolAnnotations(null, true, null, null, null, null));

    SyncToolSpecification wrapped = mcpGate.gate(readOnly, ToolPolicy.defaults());

    assertThat(wrapped.tool()).isEqualTo(readOnly.tool());
    assertThat(wrapped.callHandler()).isSameAs(readOnly.callHandler());
  }
}
