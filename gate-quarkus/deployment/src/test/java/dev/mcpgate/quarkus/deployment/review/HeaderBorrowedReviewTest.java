package dev.mcpgate.quarkus.deployment.review;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.mcp.Idempotent;
import dev.mcpgate.mcp.KeySource;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import io.modelcontextprotocol.spec.McpSchema.TextContent;
import io.quarkiverse.mcp.server.Tool;
import io.quarkiverse.mcp.server.ToolArg;
import io.quarkiverse.mcp.server.ToolResponse;
import io.quarkus.test.QuarkusUnitTest;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.eclipse.microprofile.config.ConfigProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Review (high): a HEADER-keyed gated method called from Java inside the tools/call of an UNGATED
 * tool borrows the Idempotency-Key header of that call's POST (HeaderKey reads whatever request is
 * current; it does not check, as CurrentCall.meta does for _meta, that the tools/call is of this
 * tool). Both inner charges of one order then claim (tenant, charge, the order's header): the
 * second, a different line, is answered with the first's stored result and does not run, and the
 * order tool reports two charges where one was made. docs/quarkus.md promises the opposite: in a
 * request with no gated tools/call, a gated method "is refused without a key of its own" and inner
 * calls "never borrow the outer call's key" (NestedCallsTest shows it for _meta).
 */
class HeaderBorrowedReviewTest {

  @RegisterExtension
  static final QuarkusUnitTest APP =
      new QuarkusUnitTest()
          .withApplicationRoot(jar -> jar.addClasses(Charges.class, Orders.class))
          .overrideConfigKey("quarkus.devservices.enabled", "false")
          .overrideConfigKey("quarkus.http.test-port", "0")
          .overrideConfigKey("mcpgate.store", "memory")
          .overrideConfigKey("mcpgate.tenant.constant", "header-borrow");

  static final Map<String, AtomicInteger> CHARGES = new ConcurrentHashMap<>();

  /** A charge tool keyed by the Idempotency-Key header only. */
  public static class Charges {
    @Tool(
        description = "Charges an account.",
        annotations = @Tool.Annotations(idempotentHint = true))
    @Idempotent(keySources = KeySource.HEADER)
    public ToolResponse charge(
        @ToolArg(name = "account") String account,
        @ToolArg(name = "amount_cents") long amountCents) {
      int n = CHARGES.computeIfAbsent(account, k -> new AtomicInteger()).incrementAndGet();
      return ToolResponse.success("charged " + amountCents + " (charge " + n + ")");
    }
  }

  /** An order tool, not gated itself, that charges two equal lines through {@link Charges}. */
  public static class Orders {
    @Inject Charges charges;

    @Tool(description = "Places an order of two equal lines, not gated itself.")
    ToolResponse ungatedOrder(
        @ToolArg(name = "account") String account, @ToolArg(name = "line_cents") long lineCents) {
      return ToolResponse.success(
          text(charges.charge(account, lineCents))
              + "; "
              + text(charges.charge(account, lineCents)));
    }

    private static String text(ToolResponse r) {
      return r.isError()
          + ":"
          + ((io.quarkiverse.mcp.server.TextContent) r.content().get(0)).text();
    }
  }

  @Test
  void innerChargesDoNotBorrowTheUngatedCallsHeader() {
    int port = ConfigProvider.getConfig().getValue("quarkus.http.test-port", Integer.class);
    String header = UUID.randomUUID().toString();
    McpSyncClient client =
        McpClient.sync(
                HttpClientStreamableHttpTransport.builder("http://127.0.0.1:" + port)
                    .endpoint("/mcp")
                    .httpRequestCustomizer(
                        (b, method, uri, body, ctx) ->
                            b.header(KeySource.HEADER_CONTEXT_KEY, header))
                    .build())
            .requestTimeout(Duration.ofSeconds(30))
            .build();
    client.initialize();
    try {
      String account = UUID.randomUUID().toString();
      CallToolResult result =
          client.callTool(
              new CallToolRequest("ungatedOrder", Map.of("account", account, "line_cents", 500)));
      String text = ((TextContent) result.content().get(0)).text();
      int made = CHARGES.getOrDefault(account, new AtomicInteger()).get();
      // as with _meta: neither inner call has a key of its own, so both are refused, none runs
      assertThat(text).as("order says; charges made: %s", made).startsWith("true:");
      assertThat(text).as("order says; charges made: %s", made).contains("; true:");
      assertThat(made).as("charges made; the order said: %s", text).isZero();
    } finally {
      client.closeGracefully();
    }
  }
}
