package dev.mcpgate.spring.review;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.mcp.Idempotent;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.springframework.ai.tool.ToolCallbackProvider;
import org.springframework.ai.tool.annotation.Tool;
import org.springframework.ai.tool.annotation.ToolParam;
import org.springframework.ai.tool.method.MethodToolCallbackProvider;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;

/**
 * The starter wraps every tool whose handler method carries {@code @Idempotent}, from
 * {@code @McpTool} methods and from tool callbacks (docs/spring-boot.md). A tool callback made from
 * Spring AI's own {@code @Tool(name = "refund_order")} (MethodToolCallbackProvider) is served under
 * that name; the policy was filed under the method's name ("refund"), which no specification has,
 * so refund_order ran ungated and its retry ran the refund again (found in review).
 */
class SpringAiToolCallbackIsGatedReviewTest {

  public static class Tools {
    static final AtomicInteger REFUNDS = new AtomicInteger();

    @Tool(name = "refund_order", description = "Refund an order")
    @Idempotent
    public String refund(@ToolParam(description = "the order") String orderId) {
      return "refund " + REFUNDS.incrementAndGet() + " for " + orderId;
    }
  }

  @EnableAutoConfiguration
  @Import(ReviewApps.OpenSecurity.class)
  public static class Server {
    @Bean
    Tools tools() {
      return new Tools();
    }

    @Bean
    ToolCallbackProvider refundCallbacks(Tools tools) {
      return MethodToolCallbackProvider.builder().toolObjects(tools).build();
    }
  }

  @Test
  void anIdempotentSpringAiToolCallbackIsGated() {
    try (ConfigurableApplicationContext app = ReviewApps.memoryServer(Server.class)) {
      McpSyncClient client = ReviewApps.client(app);
      try {
        // the key in _meta (a client that retries on its own): the schema check cannot refuse it
        CallToolRequest call =
            CallToolRequest.builder()
                .name("refund_order")
                .arguments(Map.of("orderId", "o-1"))
                .meta(Map.of("dev.mcpgate/idempotency-key", "k-review-1"))
                .build();
        CallToolResult first = client.callTool(call);
        CallToolResult retry = client.callTool(call);
        assertThat(Tools.REFUNDS.get())
            .as(
                "refund_order, annotated @Idempotent, ran on the retry too: first=%s retry=%s",
                first, retry)
            .isEqualTo(1);
        assertThat(retry.meta()).containsEntry("dev.mcpgate/replayed", true);
      } finally {
        client.closeGracefully();
      }
    }
  }
}
