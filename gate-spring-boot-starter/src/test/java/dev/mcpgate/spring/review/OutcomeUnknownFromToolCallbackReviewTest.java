package dev.mcpgate.spring.review;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.core.OutcomeUnknownException;
import dev.mcpgate.mcp.Idempotent;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.util.List;
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
 * As OutcomeUnknownFromAnnotatedToolTest, for a Spring AI {@code @Tool} served through
 * MethodToolCallbackProvider (which docs/spring-boot.md says the starter gates too).
 *
 * <p>docs/operations.md: "if a handler can fail after the refund was made, throw {@code
 * OutcomeUnknownException} there, so that the key is fenced instead of released". An
 * {@code @McpTool} method's exception is caught by Spring AI's method callback and answered as an
 * error result before the gate sees it; the retry with the same key must still not refund again.
 */
class OutcomeUnknownFromToolCallbackReviewTest {

  public static class Tools {
    static final AtomicInteger REFUNDS = new AtomicInteger();

    @Tool(name = "refund_order", description = "Refund an order")
    @Idempotent
    public String refund(@ToolParam(description = "the order") String orderId) {
      REFUNDS.incrementAndGet(); // the provider took the refund; its answer was lost
      throw new OutcomeUnknownException("the payment provider timed out after the request");
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
  void anOutcomeUnknownExceptionOfASpringAiToolCallbackFencesTheKey() {
    try (ConfigurableApplicationContext app = ReviewApps.memoryServer(Server.class)) {
      List<CallToolResult> answers =
          ReviewApps.sameCallTwice(app, "refund_order", Map.of("orderId", "o-1"), "k-unknown-1");
      CallToolResult first = answers.get(0);
      CallToolResult retry = answers.get(1);
      assertThat(Tools.REFUNDS.get())
          .as("refunds run: first=%s retry=%s", first, retry)
          .isEqualTo(1);
      assertThat(String.valueOf(retry.structuredContent())).contains("idempotency_outcome_unknown");
    }
  }
}
