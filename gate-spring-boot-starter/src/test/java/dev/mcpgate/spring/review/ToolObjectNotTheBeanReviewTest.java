package dev.mcpgate.spring.review;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.core.OutcomeUnknownException;
import dev.mcpgate.mcp.Idempotent;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.ai.tool.ToolCallbackProvider;
import org.springframework.ai.tool.annotation.Tool;
import org.springframework.ai.tool.annotation.ToolParam;
import org.springframework.ai.tool.method.MethodToolCallbackProvider;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;

/**
 * Review M. The tool class is a bean (so ToolSpecificationGating finds its @Idempotent policy and
 * GATES the tool), but the ToolCallbackProvider is handed another instance of it: here through a
 * lite configuration (as {@code @Configuration(proxyBeanMethods = false)}, Spring Boot's own style;
 * not annotated here, where other servers' component scans would find it) whose provider method
 * calls {@code refundTools()}, which returns a new, unproxied object (as {@code toolObjects(new
 * RefundTools(...))} does). Spring AI invokes the method on that object, ToolExceptions' proxy
 * never sees the OutcomeUnknownException, Spring AI's error result reaches the gate as a plain
 * failure, the key is RELEASED, and the retry refunds again. Nothing at startup says so: the survey
 * counts the tool as gated.
 */
class ToolObjectNotTheBeanReviewTest {
  static final AtomicInteger REFUNDS = new AtomicInteger();

  public static class RefundTools {
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
    RefundTools refundTools() {
      return new RefundTools();
    }

    @Bean
    ToolCallbackProvider refundCallbacks() {
      return MethodToolCallbackProvider.builder().toolObjects(refundTools()).build();
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"SYNC", "ASYNC"})
  void anUnknownOutcomeFencesTheKey(String type) {
    int before = REFUNDS.get();
    try (ConfigurableApplicationContext app =
        ReviewApps.memoryServer(Server.class, "spring.ai.mcp.server.type=" + type)) {
      List<CallToolResult> answers =
          ReviewApps.sameCallTwice(
              app, "refund_order", Map.of("orderId", "o-1"), "k-not-the-bean-" + type);
      assertThat(REFUNDS.get() - before)
          .as("refunds: first=%s retry=%s", answers.get(0), answers.get(1))
          .isEqualTo(1);
    }
  }
}
