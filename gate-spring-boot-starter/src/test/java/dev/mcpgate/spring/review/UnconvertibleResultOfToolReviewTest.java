package dev.mcpgate.spring.review;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.mcp.Idempotent;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.springframework.ai.mcp.annotation.McpTool;
import org.springframework.ai.mcp.annotation.McpToolParam;
import org.springframework.ai.tool.ToolCallbackProvider;
import org.springframework.ai.tool.annotation.Tool;
import org.springframework.ai.tool.annotation.ToolParam;
import org.springframework.ai.tool.method.MethodToolCallbackProvider;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.web.SecurityFilterChain;

/**
 * Review K. An {@code @Idempotent} tool method refunds and RETURNS; Spring AI then fails to turn
 * its return value into the tool's result (here a getter that throws, as a lazy JPA association
 * read after the method's transaction closed does) and answers with an error result. The method
 * ran, its effect happened, and it threw nothing, so ToolExceptions notes nothing: the gate takes
 * the error result for a plain failure, releases the key, and the retry refunds again. gate-quarkus
 * fences the same case (a result that cannot be stored after the method returned is an unknown
 * outcome, not a failure: docs/quarkus.md).
 */
class UnconvertibleResultOfToolReviewTest {
  static final AtomicInteger REFUNDS = new AtomicInteger();

  /** What the refund returns: its receipt, read lazily (as an entity's lazy association). */
  public static class Refund {
    public String getOrderId() {
      return "o-1";
    }

    public String getReceipt() {
      throw new IllegalStateException(
          "failed to lazily initialize a collection: could not initialize proxy - no Session");
    }
  }

  public static class CallbackTools {
    @Tool(name = "refund_order", description = "Refund an order")
    @Idempotent
    public Refund refund(@ToolParam(description = "the order") String orderId) {
      REFUNDS.incrementAndGet(); // the refund is made and committed
      return new Refund();
    }
  }

  public static class McpTools {
    @McpTool(name = "refund_order", description = "Refund an order")
    @Idempotent
    public Refund refund(@McpToolParam(description = "the order") String orderId) {
      REFUNDS.incrementAndGet(); // the refund is made and committed
      return new Refund();
    }
  }

  @EnableAutoConfiguration
  public static class CallbackServer {
    @Bean
    SecurityFilterChain open(HttpSecurity http) throws Exception {
      return http.csrf(c -> c.disable())
          .authorizeHttpRequests(a -> a.anyRequest().permitAll())
          .build();
    }

    @Bean
    CallbackTools tools() {
      return new CallbackTools();
    }

    @Bean
    ToolCallbackProvider refundCallbacks(CallbackTools tools) {
      return MethodToolCallbackProvider.builder().toolObjects(tools).build();
    }
  }

  @EnableAutoConfiguration
  public static class McpToolServer {
    @Bean
    SecurityFilterChain open(HttpSecurity http) throws Exception {
      return http.csrf(c -> c.disable())
          .authorizeHttpRequests(a -> a.anyRequest().permitAll())
          .build();
    }

    @Bean
    McpTools tools() {
      return new McpTools();
    }
  }

  @Test
  void aToolCallbackWhoseReturnValueCannotBeConvertedKeepsItsKey() {
    refundedOnce("callback", ReviewApps.memoryServer(CallbackServer.class));
  }

  @Test
  void anMcpToolWhoseReturnValueCannotBeConvertedKeepsItsKey() {
    refundedOnce("mcp-tool", ReviewApps.memoryServer(McpToolServer.class));
  }

  private static void refundedOnce(String kind, ConfigurableApplicationContext started) {
    int before = REFUNDS.get();
    try (ConfigurableApplicationContext app = started) {
      McpSyncClient client = ReviewApps.client(app);
      try {
        CallToolRequest call =
            CallToolRequest.builder()
                .name("refund_order")
                .arguments(Map.of("orderId", "o-1"))
                .meta(Map.of("dev.mcpgate/idempotency-key", "k-unconvertible-" + kind))
                .build();
        CallToolResult first = client.callTool(call);
        CallToolResult retry = client.callTool(call);
        assertThat(REFUNDS.get() - before)
            .as("%s: refunds run: first=%s retry=%s", kind, first, retry)
            .isEqualTo(1);
      } finally {
        client.closeGracefully();
      }
    }
  }
}
