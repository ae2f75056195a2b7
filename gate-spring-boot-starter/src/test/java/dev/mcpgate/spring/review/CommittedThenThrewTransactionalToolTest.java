package dev.mcpgate.spring.review;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.mcp.Idempotent;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.ai.mcp.annotation.McpTool;
import org.springframework.ai.mcp.annotation.McpToolParam;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.interceptor.TransactionAspectSupport;

/**
 * A gated {@code @Transactional} tool writes its charge, then throws an exception on which Spring
 * commits: a checked exception (Spring's default), or one its {@code noRollbackFor} names. The
 * charge is kept; the key must not be freed for a retry that charges again (it was). And one that
 * marks its transaction rollback-only and returns "charged": Spring rolls back without a word, and
 * the answer must not be stored and replayed as done (it was, for the retention), nor the key
 * freed. Needs PostgreSQL at 127.0.0.1:5432 (database test, user postgres).
 */
class CommittedThenThrewTransactionalToolTest {
  static final String TABLE = ReviewApps.chargeTable("mg_committed_threw");

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

    @McpTool(name = "charge_checked", description = "Charge an order")
    @Idempotent
    @Transactional
    public String chargeChecked(@McpToolParam(description = "the order") String orderId)
        throws ReceiptFailed {
      jdbc.update("INSERT INTO " + TABLE + " VALUES (?)", orderId);
      throw new ReceiptFailed("the receipt could not be sent for " + orderId);
    }

    @McpTool(name = "charge_rolled_back", description = "Charge an order")
    @Idempotent
    @Transactional
    public String chargeRolledBack(@McpToolParam(description = "the order") String orderId) {
      jdbc.update("INSERT INTO " + TABLE + " VALUES (?)", orderId);
      // a check after the charge fails; the method rolls back and still says it charged
      TransactionAspectSupport.currentTransactionStatus().setRollbackOnly();
      return "charged " + orderId;
    }

    @McpTool(name = "charge_no_rollback", description = "Charge an order")
    @Idempotent
    @Transactional(noRollbackFor = IllegalStateException.class)
    public String chargeNoRollback(@McpToolParam(description = "the order") String orderId) {
      jdbc.update("INSERT INTO " + TABLE + " VALUES (?)", orderId);
      throw new IllegalStateException("the receipt could not be sent for " + orderId);
    }
  }

  @EnableAutoConfiguration
  @Import(ReviewApps.OpenSecurity.class)
  public static class Server {
    @Bean
    Tools tools(JdbcTemplate jdbc) {
      return new Tools(jdbc);
    }
  }

  private static final Map<String, ConfigurableApplicationContext> APPS = new HashMap<>();

  @BeforeAll
  static void start() {
    // an async server serves no @McpTool method that does not return a Mono or Flux: a Mono
    // tool's transaction is ReactiveTransactionalToolReviewTest's
    APPS.put("SYNC", ReviewApps.postgresServer(Server.class, 5432));
  }

  @AfterAll
  static void stop() {
    APPS.values().forEach(ConfigurableApplicationContext::close);
  }

  @ParameterizedTest
  @CsvSource({"SYNC, charge_checked", "SYNC, charge_no_rollback"})
  void aRetryDoesNotChargeAgain(String type, String tool) throws Exception {
    String order = UUID.randomUUID().toString();
    List<Object> answers = ReviewApps.chargeTwice(APPS.get(type), tool, order);
    assertThat(ReviewApps.charges(TABLE, order))
        .as("charge rows; answers %s", answers)
        .isEqualTo(1);
  }

  /**
   * The method said it charged, but its transaction rolled back: that is not stored as done, nor is
   * the key freed (what it did outside that transaction may have taken effect): unknown.
   */
  @ParameterizedTest
  @ValueSource(strings = {"SYNC"})
  void aRolledBackChargeIsNotReplayedAsDone(String type) throws Exception {
    String order = UUID.randomUUID().toString();
    List<Object> answers = ReviewApps.chargeTwice(APPS.get(type), "charge_rolled_back", order);
    assertThat(ReviewApps.charges(TABLE, order)).isZero();
    assertThat(answers)
        .as("the call and its retry are told the outcome is unknown")
        .allSatisfy(
            a ->
                assertThat(a)
                    .isInstanceOfSatisfying(
                        CallToolResult.class,
                        r ->
                            assertThat(String.valueOf(r.structuredContent()))
                                .contains("idempotency_outcome_unknown")));
  }
}
