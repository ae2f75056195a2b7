package dev.mcpgate.spring.review;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.mcp.Idempotent;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.springframework.ai.mcp.annotation.McpTool;
import org.springframework.ai.mcp.annotation.McpToolParam;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;

/**
 * The gate takes an action that fails interrupted (FailureSettler.interrupted: an
 * InterruptedException, a CancellationException, an InterruptedIOException such as the
 * SocketTimeoutException of a read timeout, a ClosedByInterruptException, anywhere in the cause
 * chain, or the thread's interrupt flag) as an unknown outcome and fences the key; a plain adapter
 * handler throwing this is fenced. ToolExceptions.unknown checks only InterruptedException and
 * CancellationException, so on Spring AI a read timeout after the refund request was sent (the
 * textbook unknown outcome) keeps Spring AI's error result: the key is released and the retry
 * refunds again.
 *
 * <p>docs/operations.md: "if a handler can fail after the refund was made, throw {@code
 * OutcomeUnknownException} there, so that the key is fenced instead of released". An
 * {@code @McpTool} method's exception is caught by Spring AI's method callback and answered as an
 * error result before the gate sees it; the retry with the same key must still not refund again.
 */
class ReadTimeoutOfAnnotatedToolReviewTest {

  public static class Tools {
    static final AtomicInteger REFUNDS = new AtomicInteger();

    @McpTool(name = "refund_order", description = "Refund an order")
    @Idempotent
    public String refund(@McpToolParam(description = "the order") String orderId) {
      REFUNDS.incrementAndGet(); // the provider took the refund; its answer was lost
      // what Spring's RestClient throws when the provider's answer does not come in time
      throw new org.springframework.web.client.ResourceAccessException(
          "I/O error on POST request for \"https://pay.example/refunds\": Read timed out",
          new java.net.SocketTimeoutException("Read timed out"));
    }
  }

  @EnableAutoConfiguration
  @Import(ReviewApps.OpenSecurity.class)
  public static class Server {
    @Bean
    Tools tools() {
      return new Tools();
    }
  }

  @Test
  void aReadTimeoutOfAnAnnotatedToolFencesTheKeyAsTheGateItselfDoes() {
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
