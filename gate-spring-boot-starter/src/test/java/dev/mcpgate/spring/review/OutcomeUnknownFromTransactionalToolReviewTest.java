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
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.web.SecurityFilterChain;

/**
 * docs/operations.md: "if a handler can fail after the refund was made, throw {@code
 * OutcomeUnknownException} there, so that the key is fenced instead of released". An
 * {@code @McpTool} method's exception is caught by Spring AI's method callback and answered as an
 * error result before the gate sees it; the retry with the same key must still not refund again.
 */
class OutcomeUnknownFromTransactionalToolReviewTest {

  public static class Tools {
    static final AtomicInteger REFUNDS = new AtomicInteger();

    @McpTool(name = "refund_order", description = "Refund an order")
    @Idempotent
    @org.springframework.transaction.annotation.Transactional
    public String refund(@McpToolParam(description = "the order") String orderId) {
      REFUNDS.incrementAndGet(); // the provider took the refund; its answer was lost
      throw new OutcomeUnknownException("the payment provider timed out after the request");
    }
  }

  /** A transaction manager with no resource: only for the @Transactional proxy. */
  public static class NoResourceTransactions
      extends org.springframework.transaction.support.AbstractPlatformTransactionManager {
    static final AtomicInteger ROLLBACKS = new AtomicInteger();

    @Override
    protected Object doGetTransaction() {
      return new Object();
    }

    @Override
    protected void doBegin(
        Object transaction, org.springframework.transaction.TransactionDefinition definition) {}

    @Override
    protected void doCommit(
        org.springframework.transaction.support.DefaultTransactionStatus status) {}

    @Override
    protected void doRollback(
        org.springframework.transaction.support.DefaultTransactionStatus status) {
      ROLLBACKS.incrementAndGet();
    }
  }

  @EnableAutoConfiguration
  @org.springframework.transaction.annotation.EnableTransactionManagement
  public static class Server {
    @Bean
    NoResourceTransactions transactionManager() {
      return new NoResourceTransactions();
    }

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
  }

  @Test
  void anOutcomeUnknownExceptionOfATransactionalToolFencesTheKey() {
    try (ConfigurableApplicationContext app = ReviewApps.memoryServer(Server.class)) {
      List<CallToolResult> answers =
          ReviewApps.sameCallTwice(app, "refund_order", Map.of("orderId", "o-1"), "k-unknown-1");
      CallToolResult first = answers.get(0);
      CallToolResult retry = answers.get(1);
      assertThat(Tools.REFUNDS.get())
          .as("refunds run: first=%s retry=%s", first, retry)
          .isEqualTo(1);
      assertThat(NoResourceTransactions.ROLLBACKS).hasValue(1);
      assertThat(String.valueOf(first.structuredContent())).contains("idempotency_outcome_unknown");
      assertThat(String.valueOf(retry.structuredContent())).contains("idempotency_outcome_unknown");
    }
  }
}
