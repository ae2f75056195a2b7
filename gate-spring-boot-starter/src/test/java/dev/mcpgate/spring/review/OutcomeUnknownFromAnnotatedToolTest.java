package dev.mcpgate.spring.review;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.core.OutcomeUnknownException;
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
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * docs/operations.md: "if a handler can fail after the refund was made, throw {@code
 * OutcomeUnknownException} there, so that the key is fenced instead of released". An
 * {@code @McpTool} method's exception is caught by Spring AI's method callback and answered as an
 * error result before the gate sees it; the retry with the same key must still not refund again.
 */
class OutcomeUnknownFromAnnotatedToolTest {

  public static class Tools {
    static final AtomicInteger REFUNDS = new AtomicInteger();

    @McpTool(name = "refund_order", description = "Refund an order")
    @Idempotent
    public String refund(@McpToolParam(description = "the order") String orderId) {
      REFUNDS.incrementAndGet(); // the provider took the refund; its answer was lost
      throw new OutcomeUnknownException("the payment provider timed out after the request");
    }
  }

  /** The same tool on an async server, where a tool method returns a {@code Mono}. */
  public static class AsyncTools {
    @McpTool(name = "refund_order", description = "Refund an order")
    @Idempotent
    public Mono<String> refund(@McpToolParam(description = "the order") String orderId) {
      return Mono.fromCallable(Tools.REFUNDS::incrementAndGet) // the provider took the refund
          .then(Mono.error(new OutcomeUnknownException("the payment provider timed out")));
    }
  }

  /**
   * The same tool on an async server, its method returning a {@code Flux} (Spring AI takes its
   * first element).
   */
  public static class FluxTools {
    @McpTool(name = "refund_order", description = "Refund an order")
    @Idempotent
    public Flux<String> refund(@McpToolParam(description = "the order") String orderId) {
      return Mono.fromCallable(Tools.REFUNDS::incrementAndGet) // the provider took the refund
          .thenMany(
              Flux.<String>error(new OutcomeUnknownException("the payment provider timed out")));
    }
  }

  @EnableAutoConfiguration
  @Import(ReviewApps.OpenSecurity.class)
  public static class FluxServer {
    @Bean
    FluxTools tools() {
      return new FluxTools();
    }
  }

  @EnableAutoConfiguration
  @Import(ReviewApps.OpenSecurity.class)
  public static class AsyncServer {
    @Bean
    AsyncTools tools() {
      return new AsyncTools();
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
  void anOutcomeUnknownExceptionOfAnAnnotatedToolFencesTheKey() {
    refundedOnceAndFenced("sync", ReviewApps.memoryServer(Server.class));
  }

  @Test
  void onAnAsyncServerTooTheKeyIsFenced() {
    refundedOnceAndFenced(
        "async", ReviewApps.memoryServer(AsyncServer.class, "spring.ai.mcp.server.type=ASYNC"));
  }

  @Test
  void aFailedFluxOnAnAsyncServerFencesTheKeyToo() {
    refundedOnceAndFenced(
        "flux", ReviewApps.memoryServer(FluxServer.class, "spring.ai.mcp.server.type=ASYNC"));
  }

  private static void refundedOnceAndFenced(String kind, ConfigurableApplicationContext started) {
    int before = Tools.REFUNDS.get();
    try (ConfigurableApplicationContext app = started) {
      List<CallToolResult> answers =
          ReviewApps.sameCallTwice(
              app, "refund_order", Map.of("orderId", "o-1"), "k-unknown-" + kind);
      CallToolResult first = answers.get(0);
      CallToolResult retry = answers.get(1);
      assertThat(Tools.REFUNDS.get() - before)
          .as("%s server, refunds run: first=%s retry=%s", kind, first, retry)
          .isEqualTo(1);
      assertThat(String.valueOf(retry.structuredContent())).contains("idempotency_outcome_unknown");
    }
  }
}
