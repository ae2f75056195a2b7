package dev.mcpgate.spring.review;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.mcp.Idempotent;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.ai.mcp.annotation.McpTool;
import org.springframework.ai.mcp.annotation.McpToolParam;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.dao.CannotAcquireLockException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.resilience.annotation.EnableResilientMethods;
import org.springframework.resilience.annotation.Retryable;
import org.springframework.transaction.annotation.Transactional;

/**
 * Review O (of 1e3deb17). The common "retry a transactional method on a lock failure" setup: Spring
 * Framework 7's {@code @Retryable} (its advice outside {@code @Transactional}'s, as Spring places
 * it) on a gated {@code @Transactional} tool. ToolExceptions' {@code noting} is outermost, so one
 * {@code ending} array serves every attempt; {@code Ending.watch} registers only while it is
 * WATCHING, i.e. for the first attempt's transaction. That one rolled back (the lock failure); the
 * second attempt's transaction committed and the method returned. The call is answered "its
 * transaction was rolled back, nothing it wrote was kept" (untrue), the key is freed, and the retry
 * charges again.
 *
 * <p>Review P (of 2947d1ba): {@code Ending.watch} then kept only the last attempt's end. A first
 * attempt that charges and throws a checked exception (Spring commits on one: the charge is kept),
 * retried, then a second whose transaction rolls back (a RuntimeException): the end read was
 * ROLLED_BACK, the thrown exception freed the key, and the caller's retry charged again. Any
 * attempt that committed must fence the key, also when the last one answers an error result of its
 * own (review R, in Quarkus: it speaks for itself, not for the first). Needs PostgreSQL at
 * 127.0.0.1:5432 (database test, user postgres).
 */
class RetriedTransactionalToolReviewTest {
  static final String TABLE = ReviewApps.chargeTable("mg_retried_tx");
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

    @McpTool(name = "charge_retried", description = "Charge an order")
    @Idempotent
    @Retryable(includes = CannotAcquireLockException.class, maxRetries = 2, delay = 0)
    @Transactional
    public String charge(@McpToolParam(description = "the order") String orderId) {
      jdbc.update("INSERT INTO " + TABLE + " VALUES (?)", orderId);
      int attempt = ATTEMPTS.computeIfAbsent(orderId, k -> new AtomicInteger()).incrementAndGet();
      if (attempt % 2 == 1) { // each call's first attempt meets a lock timeout, rolled back
        throw new CannotAcquireLockException("lock timeout on the account row");
      }
      return "charged " + orderId;
    }

    @McpTool(name = "charge_retry_after_commit", description = "Charge an order")
    @Idempotent
    @Retryable(includes = ReceiptFailed.class, maxRetries = 1, delay = 0)
    @Transactional
    public String chargeThenFail(@McpToolParam(description = "the order") String orderId)
        throws ReceiptFailed {
      int attempt = ATTEMPTS.computeIfAbsent(orderId, k -> new AtomicInteger()).incrementAndGet();
      if (attempt % 2 == 1) {
        jdbc.update("INSERT INTO " + TABLE + " VALUES (?)", orderId); // kept: committed
        throw new ReceiptFailed("the receipt service is down for " + orderId);
      }
      // the retry finds the order already charged (by the first attempt) and gives up
      throw new IllegalStateException("order " + orderId + " is in an unexpected state");
    }

    @McpTool(name = "charge_retry_then_declined", description = "Charge an order")
    @Idempotent
    @Retryable(includes = ReceiptFailed.class, maxRetries = 1, delay = 0)
    @Transactional
    public CallToolResult chargeThenDeclined(
        @McpToolParam(description = "the order") String orderId) throws ReceiptFailed {
      int attempt = ATTEMPTS.computeIfAbsent(orderId, k -> new AtomicInteger()).incrementAndGet();
      if (attempt % 2 == 1) {
        jdbc.update("INSERT INTO " + TABLE + " VALUES (?)", orderId); // kept: committed
        throw new ReceiptFailed("the receipt service is down for " + orderId);
      }
      // the second attempt answers an error of its own: it speaks for itself, not the first
      return CallToolResult.builder().addTextContent("the card was declined").isError(true).build();
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

  @RegisterExtension
  static final ReviewApps.Running APP =
      new ReviewApps.Running(() -> ReviewApps.postgresServer(Server.class, 5432));

  @Test
  void aChargeThatCommittedOnItsSecondAttemptIsNotMadeAgain() throws Exception {
    String order = UUID.randomUUID().toString();
    List<Object> answers = ReviewApps.chargeTwice(APP.app(), "charge_retried", order);
    assertThat(ReviewApps.charges(TABLE, order))
        .as("charge rows; answers %s", answers)
        .isEqualTo(1);
  }

  @Test
  void aChargeCommittedByAnEarlierAttemptIsNotMadeAgain() throws Exception {
    String order = UUID.randomUUID().toString();
    List<Object> answers = ReviewApps.chargeTwice(APP.app(), "charge_retry_after_commit", order);
    assertThat(ReviewApps.charges(TABLE, order))
        .as("charge rows; answers %s", answers)
        .isEqualTo(1);
  }

  @Test
  void aChargeCommittedByAnEarlierAttemptIsNotMadeAgainAfterAnErrorResult() throws Exception {
    String order = UUID.randomUUID().toString();
    List<Object> answers = ReviewApps.chargeTwice(APP.app(), "charge_retry_then_declined", order);
    assertThat(ReviewApps.charges(TABLE, order))
        .as("charge rows; answers %s", answers)
        .isEqualTo(1);
  }
}
