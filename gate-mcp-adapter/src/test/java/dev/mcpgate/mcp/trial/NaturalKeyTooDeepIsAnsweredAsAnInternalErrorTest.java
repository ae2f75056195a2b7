package dev.mcpgate.mcp.trial;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.core.GateEvent;
import dev.mcpgate.core.IdempotencyGate;
import dev.mcpgate.core.RejectionReason;
import dev.mcpgate.core.memory.InMemoryIdempotencyStore;
import dev.mcpgate.mcp.KeySource;
import dev.mcpgate.mcp.McpGate;
import dev.mcpgate.mcp.TenantResolver;
import dev.mcpgate.mcp.ToolPolicy;
import io.modelcontextprotocol.common.McpTransportContext;
import io.modelcontextprotocol.json.McpJsonDefaults;
import io.modelcontextprotocol.server.McpStatelessServerFeatures;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * docs/security.md, Byte budgets: an argument deeper than 64 levels "is refused as {@code
 * arguments_invalid} naming the bound and the path".
 *
 * <p>Expected: the same for an argument that makes a natural key (a model sends what it likes in
 * {@code email}): {@code arguments_invalid}, {@code retry_with_same_key} false (the same call meets
 * the same refusal), and a REJECTED event (ARGUMENTS_INVALID) for the meters. What happens:
 * KeyExtractor builds the natural key with CanonicalJson.toCanonicalString outside the adapter's
 * catch of argument problems, so its InvalidArgumentsException is taken for a hook that threw: the
 * model is told {@code idempotency_internal_error}, "The server failed before running this call ...
 * It is safe to retry the same call with the same key later" ({@code retry_with_same_key} true,
 * which is untrue: every retry fails the same way), no REJECTED event is sent, and the operator
 * gets an ERROR line for a caller's bad argument. The same argument outside the natural key is
 * refused as {@code arguments_invalid}.
 */
class NaturalKeyTooDeepIsAnsweredAsAnInternalErrorTest {
  private final InMemoryIdempotencyStore store = InMemoryIdempotencyStore.create();
  private final List<GateEvent> events = new CopyOnWriteArrayList<>();
  private final IdempotencyGate gate = IdempotencyGate.builder(store).listener(events::add).build();
  private final AtomicInteger sent = new AtomicInteger();

  @AfterEach
  void close() {
    gate.close();
  }

  @Test
  void aNaturalKeyArgumentNestedTooDeepIsRefusedAsArgumentsInvalid() {
    McpSchema.Tool reset =
        McpSchema.Tool.builder()
            .name("send_reset")
            .description("Send a password reset mail.")
            .inputSchema(McpJsonDefaults.getMapper(), "{\"type\":\"object\"}")
            .build();
    McpGate mcpGate = McpGate.builder(gate).tenantResolver(TenantResolver.fixed("acme")).build();
    var gated =
        mcpGate.gate(
            new McpStatelessServerFeatures.SyncToolSpecification(
                reset,
                (context, request) -> {
                  sent.incrementAndGet();
                  return CallToolResult.builder().addTextContent("mail sent").build();
                }),
            ToolPolicy.builder().keySources(KeySource.NATURAL).naturalKey("email").build());
    Object deep = "alice@example.com";
    for (int i = 0; i < 100; i++) {
      deep = List.of(deep);
    }

    CallToolResult answer =
        gated
            .callHandler()
            .apply(
                McpTransportContext.EMPTY,
                new CallToolRequest("send_reset", Map.of("email", deep)));

    assertThat(sent).hasValue(0);
    assertThat(answer.isError()).isTrue();
    @SuppressWarnings("unchecked")
    Map<String, Object> error =
        (Map<String, Object>) ((Map<String, Object>) answer.structuredContent()).get("error");
    assertThat(error)
        .as("a caller's argument problem, not the server's failure")
        .containsEntry("type", "arguments_invalid")
        .containsEntry("executed", "no")
        .containsEntry("retry_with_same_key", false);
    assertThat(error.get("message").toString()).contains("64");
    assertThat(events)
        .as("told to the listeners like any argument refused before the gate")
        .anySatisfy(e -> assertThat(e.rejection()).isEqualTo(RejectionReason.ARGUMENTS_INVALID));
  }
}
