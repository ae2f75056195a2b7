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
import org.springframework.ai.mcp.annotation.McpTool;
import org.springframework.ai.mcp.annotation.McpToolParam;
import org.springframework.ai.tool.ToolCallbackProvider;
import org.springframework.ai.tool.annotation.Tool;
import org.springframework.ai.tool.annotation.ToolParam;
import org.springframework.ai.tool.method.MethodToolCallbackProvider;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;

/**
 * A tool method that a proxy cannot wrap (final), so the starter cannot see what it throws: its
 * unknown outcome was answered as an error result, the key released, and the retry refunded again.
 * Each case now fences the key on an error result, and the retry refunds nothing: a final
 * {@code @McpTool} method, and a final {@code @Tool} method implementing an interface's {@code
 * Idempotent} method (the class had been proxied, the method run on the proxy's empty instance). A
 * tool whose method a proxy wraps (the interface's, not final) is seen as before.
 */
class UnproxiableToolMethodTest {
  static final AtomicInteger REFUNDS = new AtomicInteger();

  /** The tool's contract, which carries the gate's annotation. */
  public interface Refunds {
    @Idempotent(tool = "refund_order")
    String refund(String orderId);
  }

  /** A final implementation of it. */
  public static class FinalRefundTools implements Refunds {
    @Override
    @Tool(name = "refund_order", description = "Refund an order")
    public final String refund(@ToolParam(description = "the order") String orderId) {
      REFUNDS.incrementAndGet(); // the provider took the refund; its answer was lost
      throw new OutcomeUnknownException("the payment provider timed out after the request");
    }
  }

  /** The same, not final: proxied. */
  public static class RefundTools implements Refunds {
    @Override
    @Tool(name = "refund_order", description = "Refund an order")
    public String refund(@ToolParam(description = "the order") String orderId) {
      REFUNDS.incrementAndGet();
      throw new OutcomeUnknownException("the payment provider timed out after the request");
    }
  }

  /** A final MCP tool method of the class's own. */
  public static class FinalMcpTools {
    @McpTool(name = "refund_order", description = "Refund an order")
    @Idempotent
    public final String refund(@McpToolParam(description = "the order") String orderId) {
      REFUNDS.incrementAndGet();
      throw new OutcomeUnknownException("the payment provider timed out after the request");
    }
  }

  @EnableAutoConfiguration
  @Import(ReviewApps.OpenSecurity.class)
  public static class FinalServer {
    @Bean
    FinalRefundTools refundTools() {
      return new FinalRefundTools();
    }

    @Bean
    ToolCallbackProvider refundCallbacks(FinalRefundTools tools) {
      return MethodToolCallbackProvider.builder().toolObjects(tools).build();
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
    ToolCallbackProvider refundCallbacks(RefundTools tools) {
      return MethodToolCallbackProvider.builder().toolObjects(tools).build();
    }
  }

  @EnableAutoConfiguration
  @Import(ReviewApps.OpenSecurity.class)
  public static class McpToolServer {
    @Bean
    FinalMcpTools refundTools() {
      return new FinalMcpTools();
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"final on an interface's", "not final", "final @McpTool"})
  void anUnknownOutcomeFencesTheKey(String method) {
    int before = REFUNDS.get();
    Class<?> server =
        switch (method) {
          case "final on an interface's" -> FinalServer.class;
          case "not final" -> Server.class;
          default -> McpToolServer.class;
        };
    try (ConfigurableApplicationContext app = ReviewApps.memoryServer(server)) {
      List<CallToolResult> answers =
          ReviewApps.sameCallTwice(
              app, "refund_order", Map.of("orderId", "o-1"), "k-unproxiable-" + method.length());
      assertThat(REFUNDS.get() - before)
          .as("refunds: first=%s retry=%s", answers.get(0), answers.get(1))
          .isEqualTo(1);
    }
  }
}
