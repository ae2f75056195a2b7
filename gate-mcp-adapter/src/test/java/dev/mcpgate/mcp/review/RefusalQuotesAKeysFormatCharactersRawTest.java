package dev.mcpgate.mcp.review;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.core.IdempotencyGate;
import dev.mcpgate.core.memory.InMemoryIdempotencyStore;
import dev.mcpgate.mcp.McpGate;
import dev.mcpgate.mcp.TenantResolver;
import dev.mcpgate.mcp.ToolPolicy;
import io.modelcontextprotocol.server.McpServerFeatures;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import io.modelcontextprotocol.spec.McpSchema.TextContent;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Finding (low): {@code Checks.quote} (gate-core's messages, {@code ClaimId.toString}, every log
 * line) now escapes format characters: bidirectional overrides, zero-width characters and the TAG
 * characters U+E0000..U+E007F that "ASCII smuggling" hides instructions for a model in. The
 * adapter's {@code ModelMessages.quoted}, whose Javadoc says it quotes a key "as gate-core's
 * messages and ClaimId#toString quote it", escapes only {@code "} and {@code \}. {@code ClaimId}
 * accepts format characters in a key, so a conflict (or in-progress) refusal sends the model the
 * key's invisible characters raw, where the log line for the same call shows them escaped.
 *
 * <p>Input: a key {@code "k-" + U+202E + "1" + U+E0041}, used twice with different arguments.
 * Expected: the refusal quotes it as gate-core does, with no format character in its text. What
 * happens: the RIGHT-TO-LEFT OVERRIDE and the TAG character reach the model's text raw.
 */
class RefusalQuotesAKeysFormatCharactersRawTest {

  @Test
  void aConflictRefusalQuotesTheKeyWithoutInvisibleCharacters() {
    McpServerFeatures.SyncToolSpecification gated =
        McpGate.builder(IdempotencyGate.builder(InMemoryIdempotencyStore.create()).build())
            .tenantResolver(TenantResolver.fixed("tests"))
            .build()
            .gate(
                McpServerFeatures.SyncToolSpecification.builder()
                    .tool(
                        McpSchema.Tool.builder("refund_order", Map.of("type", "object"))
                            .description("Refund an order.")
                            .build())
                    .callHandler(
                        (exchange, request) ->
                            CallToolResult.builder().addTextContent("refunded").build())
                    .build(),
                ToolPolicy.defaults());
    String key = "k-\u202E1" + new String(Character.toChars(0xE0041));

    gated
        .callHandler()
        .apply(
            null,
            new CallToolRequest("refund_order", Map.of("order", "o-1", "idempotency_key", key)));
    CallToolResult conflict =
        gated
            .callHandler()
            .apply(
                null,
                new CallToolRequest(
                    "refund_order", Map.of("order", "o-2", "idempotency_key", key)));

    assertThat(conflict.isError()).isTrue();
    String text = ((TextContent) conflict.content().get(0)).text();
    assertThat(text).contains("was already used");
    assertThat(text.codePoints().filter(c -> Character.getType(c) == Character.FORMAT).count())
        .as("format characters in the model's text: %s", text)
        .isZero();
  }
}
