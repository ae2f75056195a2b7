package dev.mcpgate.spring.review;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.core.OutcomeUnknownException;
import dev.mcpgate.mcp.Idempotent;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.ai.mcp.annotation.McpTool;
import org.springframework.ai.mcp.annotation.McpToolParam;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.util.ClassUtils;

/**
 * The starter in an application without spring-tx (no JDBC, no transactions; spring-tx is an
 * optional dependency of the starter): it starts, a retry of a returned call gets the stored
 * result, and what an {@code @Idempotent} method throws still reaches the gate, so an unknown
 * outcome fences the key. Run by the surefire execution {@code without-spring-tx}, whose class path
 * leaves spring-tx and the JDBC modules out; the default execution skips it.
 */
class WithoutSpringTxTest {
  static final AtomicInteger MAILS = new AtomicInteger();
  static final AtomicInteger REFUNDS = new AtomicInteger();

  public static class Tools {
    @McpTool(name = "send_mail", description = "Send a mail")
    @Idempotent
    public String send(@McpToolParam(description = "to whom") String to) {
      return "mail " + MAILS.incrementAndGet() + " sent to " + to;
    }

    @McpTool(name = "refund_order", description = "Refund an order")
    @Idempotent
    public String refund(@McpToolParam(description = "the order") String orderId) {
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
  }

  @RegisterExtension
  static final ReviewApps.Running APP =
      new ReviewApps.Running(() -> ReviewApps.memoryServer(Server.class));

  @Test
  void theClassPathHasNoSpringTx() {
    assertThat(
            ClassUtils.isPresent(
                "org.springframework.transaction.PlatformTransactionManager",
                getClass().getClassLoader()))
        .as("spring-tx on the class path: this test must run in the without-spring-tx execution")
        .isFalse();
  }

  @Test
  void aRetryOfAReturnedCallGetsTheStoredResult() {
    int before = MAILS.get();
    List<CallToolResult> answers =
        ReviewApps.sameCallTwice(APP.app(), "send_mail", Map.of("to", "ana@example.com"), "k-mail");
    assertThat(MAILS.get() - before).as("mails; answers %s", answers).isEqualTo(1);
    assertThat(answers.get(1).content()).isEqualTo(answers.get(0).content());
  }

  @Test
  void anUnknownOutcomeFencesTheKey() {
    int before = REFUNDS.get();
    List<CallToolResult> answers =
        ReviewApps.sameCallTwice(APP.app(), "refund_order", Map.of("orderId", "o-1"), "k-refund");
    assertThat(REFUNDS.get() - before).as("refunds; answers %s", answers).isEqualTo(1);
    assertThat(answers.get(1).structuredContent().toString())
        .contains("idempotency_outcome_unknown");
  }
}
