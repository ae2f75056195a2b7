package dev.mcpgate.spring.review;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.mcp.Idempotent;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.ai.mcp.annotation.McpTool;
import org.springframework.ai.mcp.annotation.McpToolParam;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.resilience.annotation.EnableResilientMethods;
import org.springframework.resilience.annotation.Retryable;
import org.springframework.transaction.annotation.Transactional;

/**
 * Review P (of 2947d1ba). A gated {@code @Transactional} tool under Spring's {@code @Retryable}:
 * each attempt begins a transaction, and {@code Ending.watch} keeps only the LAST attempt's end
 * ({@code end[1] == attempt}). The first attempt charges and then throws a checked exception (the
 * receipt service is down; Spring commits on a checked exception, the charge is kept) which the
 * retry retries; the second attempt's transaction rolls back (a RuntimeException). The call's end
 * is read as ROLLED_BACK, so the thrown exception frees the key, and the caller's retry with the
 * same key charges again: two charges for one intent. Any attempt that committed (or may have) must
 * fence the key. Needs PostgreSQL at 127.0.0.1:5432 (database test, user postgres).
 */
class RetryAfterCommittedAttemptReviewTest {
  static final String TABLE = ReviewApps.chargeTable("mg_retry_committed");
  static final Map<String, AtomicInteger> ATTEMPTS = new ConcurrentHashMap<>();

  /** A checked failure after the charge: the receipt could not be sent. */
  public static class ReceiptFailed extends Exception {
    private static final long serialVersionUID = 1L;

    public ReceiptFailed(String message) {
      super(message);
    }
  }

  public static class Tools {
    private final JdbcTemplate jdbc;

    public Tools(JdbcTemplate jdbc) {
      this.jdbc = jdbc;
    }

    @McpTool(name = "charge_retry_after_commit", description = "Charge an order")
    @Idempotent
    @Retryable(includes = ReceiptFailed.class, maxRetries = 1, delay = 0)
    @Transactional
    public String charge(@McpToolParam(description = "the order") String orderId)
        throws ReceiptFailed {
      int attempt = ATTEMPTS.computeIfAbsent(orderId, k -> new AtomicInteger()).incrementAndGet();
      if (attempt % 2 == 1) {
        jdbc.update("INSERT INTO " + TABLE + " VALUES (?)", orderId); // kept: committed
        throw new ReceiptFailed("the receipt service is down for " + orderId);
      }
      // the retry finds the order already charged (by the first attempt) and gives up
      throw new IllegalStateException("order " + orderId + " is in an unexpected state");
    }
  }

  @EnableAutoConfiguration
  @EnableResilientMethods
  @Import(ReviewApps.OpenSecurity.class)
  public static class Server {
    @Bean
    Tools tools(JdbcTemplate jdbc) {
      return new Tools(jdbc);
    }
  }

  private static ConfigurableApplicationContext app;

  @BeforeAll
  static void start() {
    app = ReviewApps.postgresServer(Server.class, 5432);
  }

  @AfterAll
  static void stop() {
    if (app != null) {
      app.close();
    }
  }

  @Test
  void aChargeCommittedByAnEarlierAttemptIsNotMadeAgain() throws Exception {
    String order = UUID.randomUUID().toString();
    List<Object> answers = ReviewApps.chargeTwice(app, "charge_retry_after_commit", order);
    assertThat(ReviewApps.charges(TABLE, order))
        .as("charge rows; answers %s", answers)
        .isEqualTo(1);
  }
}
