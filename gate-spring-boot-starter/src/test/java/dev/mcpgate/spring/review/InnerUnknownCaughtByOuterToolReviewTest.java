package dev.mcpgate.spring.review;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.core.OutcomeUnknownException;
import dev.mcpgate.mcp.Idempotent;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import io.modelcontextprotocol.spec.McpSchema.TextContent;
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
 * ToolExceptions notes, for the whole handler call, what any {@code @Idempotent} method threw on
 * the thread, not what the tool's own method threw. A composite tool ({@code cancel_order}) calls
 * another tool bean's {@code @Idempotent} method ({@code refund_order}) directly; that throws
 * {@code OutcomeUnknownException}; {@code cancel_order} handles it (it checked with the provider:
 * no refund was made) and answers with its own, definite {@code isError} result. The gate gets the
 * inner exception instead: the key of {@code cancel_order} is fenced and the caller is told
 * "outcome unknown", though the tool said, truly, that nothing happened; the retry is refused for a
 * day.
 */
class InnerUnknownCaughtByOuterToolReviewTest {

  public static class Payments {
    static final AtomicInteger ATTEMPTS = new AtomicInteger();

    @McpTool(name = "refund_order", description = "Refund an order")
    @Idempotent
    public String refund(@McpToolParam(description = "the order") String orderId) {
      ATTEMPTS.incrementAndGet();
      throw new OutcomeUnknownException("the payment provider timed out");
    }
  }

  public static class Orders {
    static final AtomicInteger CANCELS = new AtomicInteger();
    private final Payments payments;

    public Orders(Payments payments) {
      this.payments = payments;
    }

    @McpTool(name = "cancel_order", description = "Cancel an order and refund it")
    @Idempotent
    public CallToolResult cancel(@McpToolParam(description = "the order") String orderId) {
      CANCELS.incrementAndGet();
      try {
        payments.refund(orderId);
      } catch (OutcomeUnknownException e) {
        // the tool asked the provider: no refund was made; nothing changed, a definite failure
      }
      return CallToolResult.builder()
          .content(List.of(new TextContent("declined: nothing was cancelled nor refunded")))
          .isError(true)
          .build();
    }
  }

  @EnableAutoConfiguration
  @Import(ReviewApps.OpenSecurity.class)
  public static class Server {
    @Bean
    Payments payments() {
      return new Payments();
    }

    @Bean
    Orders orders(Payments payments) {
      return new Orders(payments);
    }
  }

  @Test
  void aDefiniteErrorOfTheToolIsNotTurnedIntoAnUnknownOutcomeByAnInnerCall() {
    try (ConfigurableApplicationContext app = ReviewApps.memoryServer(Server.class)) {
      List<CallToolResult> answers =
          ReviewApps.sameCallTwice(app, "cancel_order", Map.of("orderId", "o-1"), "k-cancel-1");
      CallToolResult first = answers.get(0);
      CallToolResult retry = answers.get(1);
      assertThat(String.valueOf(first.content()))
          .as("the first caller is told what the tool answered: %s", first)
          .contains("declined");
      assertThat(String.valueOf(retry.structuredContent()))
          .as("an isError result releases the key by default: the retry runs again: %s", retry)
          .doesNotContain("idempotency_outcome_unknown");
      assertThat(Orders.CANCELS.get()).isEqualTo(2);
    }
  }
}
