package dev.mcpgate.examples.quickstart;

import com.zaxxer.hikari.HikariDataSource;
import dev.mcpgate.core.ClaimContext;
import dev.mcpgate.core.IdempotencyGate;
import dev.mcpgate.core.Slf4jGateListener;
import dev.mcpgate.core.spi.IdempotencyStore;
import dev.mcpgate.jdbc.JdbcIdempotencyStore;
import dev.mcpgate.mcp.ExactNumbers;
import dev.mcpgate.mcp.GatedClaim;
import dev.mcpgate.mcp.McpGate;
import dev.mcpgate.mcp.TenantResolver;
import dev.mcpgate.mcp.ToolPolicy;
import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.server.McpServer;
import io.modelcontextprotocol.server.McpServerFeatures.SyncToolSpecification;
import io.modelcontextprotocol.server.transport.StdioServerTransportProvider;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import io.modelcontextprotocol.spec.McpSchema.ServerCapabilities;
import io.modelcontextprotocol.spec.McpSchema.Tool;
import java.math.BigDecimal;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/** An MCP server on stdio with one write tool, refund_order, that is safe to call twice. */
public final class QuickStart {
  /** The largest refund the tool takes, in cents; its schema says so too. */
  static final long MAX_CENTS = 100_000_000;

  public static void main(String[] args) {
    // The pool: the claims live in your database (H2 here; PostgreSQL, MariaDB/MySQL alike).
    HikariDataSource dataSource = new HikariDataSource();
    dataSource.setJdbcUrl(System.getProperty("shop.db", "jdbc:h2:./shop"));

    // The store and the gate, once.
    IdempotencyStore store =
        JdbcIdempotencyStore.builder(dataSource)
            .createSchemaIfMissing(true) // or run the DDL in docs/stores.md
            .build();
    IdempotencyGate gate = IdempotencyGate.builder(store).listener(new Slf4jGateListener()).build();

    // One JSON mapper that reads decimals exactly, for the transport, the server and the gate:
    // the transport is what reads the arguments.
    McpJsonMapper json = ExactNumbers.jsonMapper();
    // stdio has one user; over HTTP: TenantResolver.fromTransportContext
    McpGate mcpGate =
        McpGate.builder(gate)
            .tenantResolver(TenantResolver.fixed("local"))
            .jsonMapper(json)
            .requireExactNumbers()
            .build();

    // The tool, as the SDK defines it.
    Tool refundTool =
        Tool.builder(
                "refund_order",
                Map.of(
                    "type", "object",
                    "properties",
                        Map.of(
                            "order_id", Map.of("type", "string"),
                            "amount_cents",
                                Map.of("type", "integer", "minimum", 1, "maximum", MAX_CENTS)),
                    "required", List.of("order_id", "amount_cents")))
            .description("Refund part of an order.")
            .build();
    SyncToolSpecification refund =
        SyncToolSpecification.builder()
            .tool(refundTool)
            .callHandler(
                (exchange, request) -> {
                  String orderId = (String) request.arguments().get("order_id");
                  long amountCents = cents(request.arguments().get("amount_cents"));
                  if (amountCents < 1 || amountCents > MAX_CENTS) {
                    return CallToolResult.builder()
                        .isError(true)
                        .addTextContent(
                            "amount_cents must be a whole number from 1 to "
                                + MAX_CENTS
                                + "; nothing was refunded.")
                        .build();
                  }
                  // the same on every attempt: the payment provider's idempotency key
                  String downstreamKey =
                      GatedClaim.of(request).map(ClaimContext::downstreamKey).orElseThrow();
                  String refundId = refundAtProvider(orderId, amountCents, downstreamKey);
                  return CallToolResult.builder()
                      .addTextContent(
                          "Refunded " + amountCents + " cents of " + orderId + ": " + refundId)
                      .build();
                })
            .build();

    // The server on stdin/stdout, the tool gated with one call.
    McpServer.sync(new StdioServerTransportProvider(json))
        .jsonMapper(json)
        .serverInfo("shop", "1.0.0")
        .capabilities(ServerCapabilities.builder().tools(true).build())
        .tools(mcpGate.gate(refund, ToolPolicy.defaults()))
        .build();
  }

  /**
   * The amount as a whole number, exactly, or 0 when it is not one: never rounded or truncated
   * ({@code longValue()} turns 1e400 into 0 and 18446744073709552866 into 1250).
   */
  static long cents(Object amount) {
    try {
      return amount instanceof Number n ? new BigDecimal(n.toString()).longValueExact() : 0;
    } catch (ArithmeticException | NumberFormatException notAWholeLong) {
      return 0;
    }
  }

  /** Your payment provider's refund call, with its idempotency key set to downstreamKey. */
  static String refundAtProvider(String orderId, long amountCents, String downstreamKey) {
    return "re_" + UUID.randomUUID();
  }
}
