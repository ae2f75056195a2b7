package dev.mcpgate.mcp.trial;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.core.ClaimContext;
import dev.mcpgate.core.GatePolicy.FailureMode;
import dev.mcpgate.core.GateSettings;
import dev.mcpgate.core.IdempotencyGate;
import dev.mcpgate.core.ResultMapper;
import dev.mcpgate.core.Slf4jGateListener;
import dev.mcpgate.core.memory.InMemoryIdempotencyStore;
import dev.mcpgate.core.spi.ClaimingScope;
import dev.mcpgate.core.spi.IdempotencyStore;
import dev.mcpgate.core.spi.TransactionScope;
import dev.mcpgate.mcp.ExactNumbers;
import dev.mcpgate.mcp.GatedClaim;
import dev.mcpgate.mcp.Idempotent;
import dev.mcpgate.mcp.InFlight;
import dev.mcpgate.mcp.JsonResultMapper;
import dev.mcpgate.mcp.JsonTrees;
import dev.mcpgate.mcp.KeySource;
import dev.mcpgate.mcp.McpGate;
import dev.mcpgate.mcp.TenantResolver;
import dev.mcpgate.mcp.ToolPolicy;
import io.modelcontextprotocol.common.McpTransportContext;
import io.modelcontextprotocol.json.McpJsonDefaults;
import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.server.McpServer;
import io.modelcontextprotocol.server.McpServerFeatures;
import io.modelcontextprotocol.server.McpServerFeatures.SyncToolSpecification;
import io.modelcontextprotocol.server.transport.HttpServletStreamableServerTransportProvider;
import io.modelcontextprotocol.server.transport.StdioServerTransportProvider;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.sql.Connection;
import java.time.Duration;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.ai.mcp.annotation.McpTool;
import org.springframework.ai.mcp.annotation.McpToolParam;
import org.springframework.ai.mcp.annotation.provider.tool.SyncMcpToolProvider;

/** The doc's snippets, as written, compile. */
class SnippetsCompileTrialTest {
  interface Payments {
    String refund(String orderId, long amount, String downstreamKey);
  }

  record Refund(String id) {}

  Payments payments = (o, a, k) -> "re_1";
  Map<String, Object> refundSchema = Map.of("type", "object");

  static String orderId(CallToolRequest r) {
    return "o";
  }

  static long amount(CallToolRequest r) {
    return 1;
  }

  static String authenticatedAccount(jakarta.servlet.http.HttpServletRequest r) {
    return "acme";
  }

  void smallServer(IdempotencyStore store) {
    IdempotencyGate gate =
        IdempotencyGate.builder(store) // JDBC, DynamoDB, in-memory
            .listener(new Slf4jGateListener())
            .build();
    McpJsonMapper json = ExactNumbers.jsonMapper(); // decimals read exactly (see Numbers)
    McpGate mcpGate =
        McpGate.builder(gate)
            .tenantResolver(TenantResolver.fixed("local")) // a single-user stdio server
            .jsonMapper(json)
            .build();

    McpServerFeatures.SyncToolSpecification refund =
        McpServerFeatures.SyncToolSpecification.builder()
            .tool(
                McpSchema.Tool.builder("refund_order", refundSchema)
                    .description("Refund an order.")
                    .build())
            .callHandler(
                (exchange, request) -> {
                  ClaimContext claim = GatedClaim.of(request).orElseThrow();
                  String refundId =
                      payments.refund(orderId(request), amount(request), claim.downstreamKey());
                  return CallToolResult.builder().addTextContent("refunded: " + refundId).build();
                })
            .build();

    McpServer.sync(new StdioServerTransportProvider(json)) // the transport reads the arguments
        .jsonMapper(json)
        .serverInfo("shop", "1.0")
        .capabilities(McpSchema.ServerCapabilities.builder().tools(true).build())
        .tools(mcpGate.gate(refund, ToolPolicy.defaults())) // <- the one call
        .build();
  }

  public static class MailTools {
    @McpTool(name = "send_password_reset", description = "Send a password reset mail.")
    @Idempotent(retention = "PT2H")
    public String sendPasswordReset(@McpToolParam(description = "the address") String email) {
      return "sent";
    }

    @McpTool(name = "lookup_user", description = "Find a user.") // not annotated: not gated
    public String lookupUser(String email) {
      return "u";
    }
  }

  @Idempotent(failureMode = FailureMode.STORE, inFlight = InFlight.REFUSE)
  void annotated() {}

  void annotation(McpGate mcpGate, SyncToolSpecification sendMail, GateSettings mailSettings) {
    MailTools mailTools = new MailTools();
    List<SyncToolSpecification> specs =
        new SyncMcpToolProvider(List.of(mailTools)).getToolSpecifications();
    List<SyncToolSpecification> gated = mcpGate.gateAnnotated(specs, mailTools);
    mcpGate.gate(sendMail, ToolPolicy.builder().retention(Duration.ofHours(2)).build());
    mcpGate.gate(sendMail, ToolPolicy.builder().settings(mailSettings).build()); // every value
    mcpGate.gate(sendMail, ToolPolicy.builder().inFlight(InFlight.REFUSE).build());
  }

  void numbers(IdempotencyGate gate, Object argumentsNode) {
    McpJsonMapper json = ExactNumbers.jsonMapper();
    var transport = HttpServletStreamableServerTransportProvider.builder().jsonMapper(json).build();
    McpServer.sync(transport).jsonMapper(json);
    McpGate mcpGate =
        McpGate.builder(gate)
            .tenantResolver(TenantResolver.fixed("x"))
            .jsonMapper(json)
            .requireExactNumbers()
            .build();
    Map<String, Object> args = JsonTrees.toMap(argumentsNode);
    ResultMapper<Refund> results = JsonResultMapper.of(McpJsonDefaults.getMapper(), Refund.class);
  }

  void tenants() {
    HttpServletStreamableServerTransportProvider.builder()
        .contextExtractor(
            request -> McpTransportContext.create(Map.of("tenant", authenticatedAccount(request))))
        .build();
    HttpServletStreamableServerTransportProvider.builder()
        .contextExtractor(
            request -> {
              Map<String, Object> values = new HashMap<>();
              KeySource.copyHeader(
                  Collections.list(request.getHeaders(KeySource.HEADER_CONTEXT_KEY)), values);
              return McpTransportContext.create(values);
            })
        .build();
  }

  void claim(CallToolRequest request) {
    ClaimContext claim = GatedClaim.of(request).orElseThrow();
    claim.downstreamKey();
    claim.isTakeover();
    claim.isLeaseLost();
    claim.extendLease(Duration.ofMinutes(1));
  }

  void transactional(
      McpGate mcpGate,
      McpSchema.Tool stopTool,
      ToolPolicy policy,
      TransactionScope<Connection> transactions,
      ClaimingScope<Connection> singleCommit) {
    McpServerFeatures.SyncToolSpecification stop =
        mcpGate.gateTransactional(
            stopTool,
            policy,
            transactions,
            (exchange, request, scope, connection) -> {
              // write through connection; do not commit or close it
              return CallToolResult.builder().addTextContent("stopped").build();
            });
    McpServerFeatures.SyncToolSpecification stop2 =
        mcpGate.gateSingleCommit(
            stopTool,
            policy,
            singleCommit,
            (exchange, request, scope, connection) -> CallToolResult.builder().build());
  }

  @Test
  void compiles() {
    McpGate mcpGate =
        McpGate.builder(IdempotencyGate.builder(InMemoryIdempotencyStore.create()).build())
            .tenantResolver(TenantResolver.fixed("local"))
            .build();
    MailTools mailTools = new MailTools();
    List<SyncToolSpecification> gated =
        mcpGate.gateAnnotated(
            new SyncMcpToolProvider(List.of(mailTools)).getToolSpecifications(), mailTools);
    assertThat(gated).hasSize(2);
  }
}
