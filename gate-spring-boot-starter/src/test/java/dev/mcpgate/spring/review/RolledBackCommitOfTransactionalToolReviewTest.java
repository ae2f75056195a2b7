package dev.mcpgate.spring.review;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.mcp.Idempotent;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.springframework.ai.mcp.annotation.McpTool;
import org.springframework.ai.mcp.annotation.McpToolParam;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.annotation.Transactional;

/**
 * Review M. A gated {@code @Transactional} tool charges (an INSERT in the application's PostgreSQL)
 * and calls a {@code @Transactional} ledger bean, which fails the first time; the tool catches that
 * and returns. The ledger's failure marked the shared transaction rollback-only, so Spring ROLLS
 * BACK at the tool's commit and throws UnexpectedRollbackException: nothing was written, for
 * certain. gate-core's rule says so (SpringUnknownOutcomesTest: an UnexpectedRollbackException is
 * not an unknown outcome; the plain and transactional paths release). ToolExceptions instead fences
 * every error result after the method returned: the caller is told "the call ran, or may have ...
 * the same key is refused until someone checks", and the key is stuck for the retention (24 h),
 * though the database holds nothing and a retry would simply charge once. Needs PostgreSQL at
 * 127.0.0.1:5432 (database test, user postgres).
 */
class RolledBackCommitOfTransactionalToolReviewTest {
  static final String TABLE = ReviewApps.chargeTable("mg_review_m_rollback");
  static final AtomicBoolean LEDGER_FAILED_ONCE = new AtomicBoolean();

  public static class Ledger {
    @Transactional
    public void record(String orderId) {
      if (LEDGER_FAILED_ONCE.compareAndSet(false, true)) {
        throw new IllegalStateException("ledger busy, try again");
      }
    }
  }

  public static class Tools {
    private final JdbcTemplate jdbc;
    private final Ledger ledger;

    public Tools(JdbcTemplate jdbc, Ledger ledger) {
      this.jdbc = jdbc;
      this.ledger = ledger;
    }

    @McpTool(name = "charge", description = "Charge an order")
    @Idempotent
    @Transactional
    public String charge(@McpToolParam(description = "the order") String orderId) {
      jdbc.update("INSERT INTO " + TABLE + " VALUES (?)", orderId);
      try {
        ledger.record(orderId);
      } catch (IllegalStateException e) {
        // the ledger entry is best effort
      }
      return "charged " + orderId;
    }
  }

  @EnableAutoConfiguration
  @Import(ReviewApps.OpenSecurity.class)
  public static class Server {
    @Bean
    Ledger ledger() {
      return new Ledger();
    }

    @Bean
    Tools tools(JdbcTemplate jdbc, Ledger ledger) {
      return new Tools(jdbc, ledger);
    }
  }

  @Test
  void aTransactionRolledBackAtCommitReleasesTheKey() throws Exception {
    String order = UUID.randomUUID().toString();
    try (ConfigurableApplicationContext app = ReviewApps.postgresServer(Server.class, 5432)) {
      List<CallToolResult> answers =
          ReviewApps.sameCallTwice(app, "charge", Map.of("orderId", order), "k-rb-" + order);
      assertThat(LEDGER_FAILED_ONCE).isTrue();
      assertThat(String.valueOf(answers.get(0).structuredContent()))
          .as(
              "the first call rolled back (rows now: %s): it must not be told 'may have taken"
                  + " effect': %s",
              ReviewApps.charges(TABLE, order), answers.get(0))
          .doesNotContain("idempotency_outcome_unknown");
      assertThat(ReviewApps.charges(TABLE, order))
          .as(
              "the retry with the same key charges once: first=%s retry=%s",
              answers.get(0), answers.get(1))
          .isEqualTo(1);
    }
  }
}
