package dev.mcpgate.mcp.trial;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.mcpgate.core.IdempotencyGate;
import dev.mcpgate.core.memory.InMemoryIdempotencyStore;
import dev.mcpgate.mcp.KeySource;
import dev.mcpgate.mcp.McpGate;
import dev.mcpgate.mcp.TenantResolver;
import dev.mcpgate.mcp.ToolPolicy;
import io.modelcontextprotocol.server.McpServerFeatures.SyncToolSpecification;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * docs/mcp-adapter.md, "What the wrapped tool shows in tools/list" and the SEP-3182 table: the
 * sentence each kind of policy adds to the description, read-only tools, and which keys a refusal's
 * sentence quotes.
 */
class ToolListingDocTrialTest {
  private final McpGate mcpGate =
      McpGate.builder(IdempotencyGate.builder(InMemoryIdempotencyStore.create()).build())
          .tenantResolver(TenantResolver.fixed("tests"))
          .build();

  private static SyncToolSpecification spec(McpSchema.ToolAnnotations annotations) {
    return SyncToolSpecification.builder()
        .tool(
            McpSchema.Tool.builder("book_slot", Map.of("type", "object"))
                .description("Book a slot.")
                .annotations(annotations)
                .build())
        .callHandler((exchange, request) -> CallToolResult.builder().addTextContent("ok").build())
        .build();
  }

  private String description(ToolPolicy policy) {
    return mcpGate.gate(spec(null), policy).tool().description();
  }

  @Test
  void eachPolicyGetsItsSentence() {
    assertThat(description(ToolPolicy.builder().keyArgument("request_id").build()))
        .isEqualTo(
            "Book a slot.\n\nIf this call fails or times out, retry it with the same request_id and"
                + " the same arguments: it then returns the first result instead of acting twice."
                + " Use a new request_id only for a new request.");
    assertThat(description(ToolPolicy.builder().keyDescription("the app's queue id").build()))
        .endsWith(
            "If this call fails or times out, send it again with the same arguments: it then"
                + " returns the first result instead of acting twice.");
    assertThat(
            description(
                ToolPolicy.builder()
                    .keySources(KeySource.NATURAL)
                    .naturalKey("session_id", "end_at")
                    .build()))
        .endsWith(
            "Calls with the same session_id, end_at are done once: a retry returns the first"
                + " result instead of acting twice.");
    assertThat(description(ToolPolicy.builder().keySources(KeySource.META).build()))
        .endsWith("Retried calls with the same idempotency key are done once.");
  }

  @Test
  void theHintIsSetAndTheOtherAnnotationsKept() {
    McpSchema.ToolAnnotations a =
        mcpGate
            .gate(
                spec(new McpSchema.ToolAnnotations("Book", false, true, false, true, null)),
                ToolPolicy.defaults())
            .tool()
            .annotations();

    assertThat(a.idempotentHint()).isTrue();
    assertThat(a.title()).isEqualTo("Book");
    assertThat(a.destructiveHint()).isTrue();
    assertThat(a.openWorldHint()).isTrue();
  }

  @Test
  void aReadOnlyToolPassesUngatedButIsRefusedAsAWriteTool() {
    SyncToolSpecification readOnly =
        spec(new McpSchema.ToolAnnotations(null, true, null, null, null, null));

    assertThat(mcpGate.gate(readOnly, ToolPolicy.defaults())).isSameAs(readOnly);
    assertThatThrownBy(
            () ->
                mcpGate.gateTransactional(
                    readOnly.tool(),
                    ToolPolicy.defaults(),
                    new TrialUnitOfWork(InMemoryIdempotencyStore.create()),
                    (exchange, request, scope, writes) -> CallToolResult.builder().build()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("book_slot");
  }

  @Test
  void aSentenceQuotesTheClientsKeyButNeverANaturalOne() {
    SyncToolSpecification byArgument = mcpGate.gate(spec(null), ToolPolicy.defaults());
    byArgument
        .callHandler()
        .apply(null, new CallToolRequest("book_slot", Map.of("slot", 1, "idempotency_key", "k-1")));
    CallToolResult conflict =
        byArgument
            .callHandler()
            .apply(
                null,
                new CallToolRequest("book_slot", Map.of("slot", 2, "idempotency_key", "k-1")));
    assertThat(conflict.content().toString()).contains("The idempotency key \"k-1\"");

    SyncToolSpecification natural =
        mcpGate.gate(
            spec(null),
            ToolPolicy.builder().keySources(KeySource.NATURAL).naturalKey("email").build());
    natural
        .callHandler()
        .apply(null, new CallToolRequest("book_slot", Map.of("email", "a@x.example", "slot", 1)));
    CallToolResult naturalConflict =
        natural
            .callHandler()
            .apply(
                null, new CallToolRequest("book_slot", Map.of("email", "a@x.example", "slot", 2)));
    assertThat(naturalConflict.toString()).doesNotContain("a@x.example");
    assertThat(naturalConflict.content().toString()).contains("made from its arguments");
  }
}
