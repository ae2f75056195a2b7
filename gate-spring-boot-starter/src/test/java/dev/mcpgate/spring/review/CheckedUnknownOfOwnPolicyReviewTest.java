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
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;

/**
 * docs/spring-boot.md: "when the callback answers with an error result for an exception that means
 * the outcome is unknown (..., what the gate policy's outcomeUnknownWhen names, ...), the gate gets
 * that exception and fences the key". For a checked exception Spring AI's callback answers no error
 * result: it throws an UndeclaredThrowableException around it, which ToolExceptions.seeing lets
 * through as it is (and, had it been an error result, seeing would wrap the checked exception in an
 * OutcomeUnknownException): either way the gate never gets the exception the policy names. It takes
 * it for an ordinary failure, releases the key, and the retry refunds again.
 *
 * <p>docs/operations.md: "if a handler can fail after the refund was made, throw {@code
 * OutcomeUnknownException} there, so that the key is fenced instead of released". An
 * {@code @McpTool} method's exception is caught by Spring AI's method callback and answered as an
 * error result before the gate sees it; the retry with the same key must still not refund again.
 */
class CheckedUnknownOfOwnPolicyReviewTest {

  public static class Tools {
    static final AtomicInteger REFUNDS = new AtomicInteger();

    @McpTool(name = "refund_order", description = "Refund an order")
    @Idempotent
    public String refund(@McpToolParam(description = "the order") String orderId)
        throws java.io.IOException {
      REFUNDS.incrementAndGet(); // the provider took the refund; its answer was lost
      // what java.net.http.HttpClient throws when the response does not come in time
      throw new java.net.http.HttpTimeoutException("request timed out");
    }
  }

  @EnableAutoConfiguration
  @Import(ReviewApps.OpenSecurity.class)
  public static class Server {
    /** The application's own gate: a timed-out HTTP request means the outcome is unknown. */
    @Bean(destroyMethod = "close")
    dev.mcpgate.core.IdempotencyGate idempotencyGate() {
      return dev.mcpgate.core.IdempotencyGate.builder(
              dev.mcpgate.core.memory.InMemoryIdempotencyStore.create())
          .policy(
              dev.mcpgate.core.GatePolicy.defaults().toBuilder()
                  .outcomeUnknownWhen(t -> t instanceof java.net.http.HttpTimeoutException)
                  .build())
          .build();
    }

    @Bean
    Tools tools() {
      return new Tools();
    }
  }

  @Test
  void aCheckedExceptionThePolicyCallsUnknownFencesTheKey() {
    try (ConfigurableApplicationContext app = ReviewApps.memoryServer(Server.class)) {
      McpSyncClient client = ReviewApps.client(app);
      try {
        CallToolRequest call =
            CallToolRequest.builder()
                .name("refund_order")
                .arguments(Map.of("orderId", "o-1"))
                .meta(Map.of("dev.mcpgate/idempotency-key", "k-unknown-1"))
                .build();
        Object first;
        Object retry;
        try {
          first = client.callTool(call);
        } catch (RuntimeException e) {
          first = e; // Spring AI's callback throws an UndeclaredThrowableException for it
        }
        try {
          retry = client.callTool(call);
        } catch (RuntimeException e) {
          retry = e;
        }
        assertThat(Tools.REFUNDS.get())
            .as("refunds run: first=%s retry=%s", first, retry)
            .isEqualTo(1);
        assertThat(retry)
            .isInstanceOfSatisfying(
                CallToolResult.class,
                r ->
                    assertThat(String.valueOf(r.structuredContent()))
                        .contains("idempotency_outcome_unknown"));
      } finally {
        client.closeGracefully();
      }
    }
  }
}
