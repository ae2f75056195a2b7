package dev.mcpgate.spring.review;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.core.OutcomeUnknownException;
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
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.web.SecurityFilterChain;

/**
 * Review K. OutcomeUnknownFromToolCallbackReviewTest on an ASYNC server
 * (spring.ai.mcp.server.type=ASYNC). Spring AI makes the async specification of a tool callback as
 * {@code Mono.fromCallable(sync handler).subscribeOn(Schedulers.boundedElastic())}: the
 * {@code @Idempotent} method always runs on a bounded-elastic thread, never on the thread where
 * ToolExceptions installed its slot, so its OutcomeUnknownException is never noted, Spring AI's
 * error result reaches the gate as a plain failure result, the key is released and the retry
 * refunds again.
 */
class OutcomeUnknownFromToolCallbackOnAsyncServerReviewTest {

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
  public static class Server {
    @Bean
    SecurityFilterChain open(HttpSecurity http) throws Exception {
      return http.csrf(c -> c.disable())
          .authorizeHttpRequests(a -> a.anyRequest().permitAll())
          .build();
    }

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
  void onAnAsyncServerAToolCallbacksOutcomeUnknownFencesTheKey() {
    refundedOnce("k-unknown-async-callback", "spring.ai.mcp.server.type=ASYNC");
  }

  @Test
  void onAStatelessAsyncServerToo() {
    refundedOnce(
        "k-unknown-stateless-async-callback",
        "spring.ai.mcp.server.type=ASYNC",
        "spring.ai.mcp.server.protocol=STATELESS");
  }

  private static void refundedOnce(String key, String... settings) {
    int before = Tools.REFUNDS.get();
    try (ConfigurableApplicationContext app = ReviewApps.memoryServer(Server.class, settings)) {
      McpSyncClient client = ReviewApps.client(app);
      try {
        CallToolRequest call =
            CallToolRequest.builder()
                .name("refund_order")
                .arguments(Map.of("orderId", "o-1"))
                .meta(Map.of("dev.mcpgate/idempotency-key", key))
                .build();
        CallToolResult first = client.callTool(call);
        CallToolResult retry = client.callTool(call);
        assertThat(Tools.REFUNDS.get() - before)
            .as("%s: refunds run: first=%s retry=%s", String.join(",", settings), first, retry)
            .isEqualTo(1);
        assertThat(String.valueOf(retry.structuredContent()))
            .contains("idempotency_outcome_unknown");
      } finally {
        client.closeGracefully();
      }
    }
  }
}
