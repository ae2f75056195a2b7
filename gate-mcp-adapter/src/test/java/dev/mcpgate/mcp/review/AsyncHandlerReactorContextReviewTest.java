package dev.mcpgate.mcp.review;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.core.IdempotencyGate;
import dev.mcpgate.core.memory.InMemoryIdempotencyStore;
import dev.mcpgate.mcp.McpGate;
import dev.mcpgate.mcp.McpHarness;
import dev.mcpgate.mcp.TenantResolver;
import dev.mcpgate.mcp.ToolPolicy;
import io.modelcontextprotocol.common.McpTransportContext;
import io.modelcontextprotocol.server.McpServerFeatures;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import io.modelcontextprotocol.spec.McpSchema.TextContent;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

/**
 * Reviewer F (an observation, lower severity). The SDK runs an async tool's Mono with the request's
 * Reactor context, which holds the transport context ({@link McpTransportContext#KEY}; on WebFlux,
 * Spring Security's principal too). The gate subscribes to the handler's Mono with {@code block()}
 * on bounded-elastic, with an empty context: a handler that reads the caller from its Reactor
 * context sees the caller ungated and no one gated.
 */
class AsyncHandlerReactorContextReviewTest {
  private final IdempotencyGate gate =
      IdempotencyGate.builder(InMemoryIdempotencyStore.create()).build();
  private final McpGate mcpGate =
      McpGate.builder(gate).tenantResolver(TenantResolver.fromTransportContext("tenant")).build();

  @AfterEach
  void close() {
    gate.close();
  }

  private static McpServerFeatures.AsyncToolSpecification whoAmI() {
    return new McpServerFeatures.AsyncToolSpecification(
        McpSchema.Tool.builder("charge", Map.of("type", "object")).description("Charge.").build(),
        (exchange, request) ->
            Mono.deferContextual(
                ctx -> {
                  Object transport = ctx.getOrDefault(McpTransportContext.KEY, null);
                  String caller =
                      transport instanceof McpTransportContext t
                          ? String.valueOf(t.get("tenant"))
                          : "nobody";
                  return Mono.just(
                      CallToolResult.builder().addTextContent("charged " + caller).build());
                }));
  }

  private static String callAsAcme(McpServerFeatures.AsyncToolSpecification spec) {
    try (McpHarness harness = McpHarness.http(null, List.of(spec))) {
      CallToolResult r =
          harness
              .client("acme")
              .callTool(new CallToolRequest("charge", Map.of("idempotency_key", "k-1")));
      return ((TextContent) r.content().get(0)).text();
    }
  }

  @Test
  void theHandlerSeesItsCallersReactorContextGatedAsUngated() {
    assertThat(callAsAcme(whoAmI())).isEqualTo("charged acme");
    assertThat(callAsAcme(mcpGate.gate(whoAmI(), ToolPolicy.defaults()))).isEqualTo("charged acme");
  }
}
