package dev.mcpgate.spring.review;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.mcp.Idempotent;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.ai.mcp.annotation.McpTool;
import org.springframework.ai.mcp.annotation.McpToolParam;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.annotation.Propagation;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.interceptor.TransactionAspectSupport;

/**
 * 1e3deb17 answers "rolled back, nothing it wrote was kept, a retry runs it again" and frees the
 * key whenever the transaction that {@code Ending} watched ended ROLLED_BACK after the method
 * returned. That status does not mean nothing was written:
 *
 * <ol>
 *   <li>the tool's transaction rolled back, but a REQUIRES_NEW transaction it called committed its
 *       charge (an outbox row, a ledger entry): the retry charges again (before 1e3deb17 the answer
 *       was stored and replayed: one charge);
 *   <li>a tool without {@code @Transactional} calls another {@code @Idempotent @Transactional} bean
 *       method (a check that rolls back quietly) and then charges: {@code inside}'s advice of the
 *       called bean watches with the handler's own {@code ending} array, so the called method's
 *       rollback is taken for the tool's; the key is freed and the retry charges again;
 *   <li>{@code @Transactional(propagation = SUPPORTS)} without a transaction: the writes were
 *       auto-committed, Spring still reports the empty transaction's end as ROLLED_BACK.
 * </ol>
 *
 * A tool that rolls back and answers an error result of its own has said it failed: its key is
 * freed and a retry runs it again.
 *
 * <p>Needs PostgreSQL at 127.0.0.1:5432 (database test, user postgres).
 */
class TransactionEndMisreadReviewTest {
  static final String TABLE = ReviewApps.chargeTable("mg_end_misread");

  /** Writes in a transaction of its own (an outbox, a ledger). */
  public static class Ledger {
    private final JdbcTemplate jdbc;

    public Ledger(JdbcTemplate jdbc) {
      this.jdbc = jdbc;
    }

    @Transactional(propagation = Propagation.REQUIRES_NEW)
    public void charge(String orderId) {
      jdbc.update("INSERT INTO " + TABLE + " VALUES (?)", orderId);
    }
  }

  /** Another gated tool's bean, called from Java by a tool: a check that rolls back quietly. */
  public static class Checks {
    @McpTool(name = "check_order", description = "Check an order")
    @Idempotent
    @Transactional
    public boolean check(@McpToolParam(description = "the order") String orderId) {
      TransactionAspectSupport.currentTransactionStatus().setRollbackOnly();
      return false;
    }
  }

  public static class Tools {
    private final JdbcTemplate jdbc;
    private final Ledger ledger;
    private final Checks checks;
    private final Map<String, Integer> runs = new ConcurrentHashMap<>();

    public Tools(JdbcTemplate jdbc, Ledger ledger, Checks checks) {
      this.jdbc = jdbc;
      this.ledger = ledger;
      this.checks = checks;
    }

    @McpTool(name = "charge_via_ledger", description = "Charge an order")
    @Idempotent
    @Transactional
    public String chargeViaLedger(@McpToolParam(description = "the order") String orderId) {
      ledger.charge(orderId); // committed on its own
      // a later step fails; the method rolls back its own work and answers
      TransactionAspectSupport.currentTransactionStatus().setRollbackOnly();
      return "charged " + orderId + ", local bookkeeping skipped";
    }

    @McpTool(name = "check_then_charge", description = "Charge an order")
    @Idempotent
    public String checkThenCharge(@McpToolParam(description = "the order") String orderId) {
      boolean flagged = checks.check(orderId);
      jdbc.update("INSERT INTO " + TABLE + " VALUES (?)", orderId); // auto-committed
      return "charged " + orderId + (flagged ? " (flagged)" : "");
    }

    @McpTool(name = "decline_rolled_back", description = "Decline an order")
    @Idempotent
    @Transactional
    public CallToolResult declineRolledBack(
        @McpToolParam(description = "the order") String orderId) {
      runs.merge(orderId, 1, Integer::sum);
      TransactionAspectSupport.currentTransactionStatus().setRollbackOnly();
      return CallToolResult.builder()
          .addTextContent("declined " + orderId + ": nothing was charged")
          .isError(true)
          .build();
    }

    public int runs(String orderId) {
      return runs.getOrDefault(orderId, 0);
    }

    @McpTool(name = "charge_supports", description = "Charge an order")
    @Idempotent
    @Transactional(propagation = Propagation.SUPPORTS)
    public String chargeSupports(@McpToolParam(description = "the order") String orderId) {
      jdbc.update("INSERT INTO " + TABLE + " VALUES (?)", orderId); // no transaction: committed
      TransactionAspectSupport.currentTransactionStatus().setRollbackOnly();
      return "charged " + orderId;
    }
  }

  @EnableAutoConfiguration
  @Import(ReviewApps.OpenSecurity.class)
  public static class Server {
    @Bean
    Ledger ledger(JdbcTemplate jdbc) {
      return new Ledger(jdbc);
    }

    @Bean
    Checks checks() {
      return new Checks();
    }

    @Bean
    Tools tools(JdbcTemplate jdbc, Ledger ledger, Checks checks) {
      return new Tools(jdbc, ledger, checks);
    }
  }

  @RegisterExtension
  static final ReviewApps.Running APP =
      new ReviewApps.Running(() -> ReviewApps.postgresServer(Server.class, 5432));

  @Test
  void aRequiresNewChargeIsNotMadeAgainAfterTheToolRolledBack() throws Exception {
    String order = UUID.randomUUID().toString();
    List<Object> answers = ReviewApps.chargeTwice(APP.app(), "charge_via_ledger", order);
    assertThat(ReviewApps.charges(TABLE, order))
        .as("charge rows; answers %s", answers)
        .isEqualTo(1);
  }

  @Test
  void aCalledBeansRollbackIsNotTakenForTheTools() throws Exception {
    String order = UUID.randomUUID().toString();
    List<Object> answers = ReviewApps.chargeTwice(APP.app(), "check_then_charge", order);
    assertThat(ReviewApps.charges(TABLE, order))
        .as("charge rows; answers %s", answers)
        .isEqualTo(1);
  }

  @Test
  void anAutoCommittedChargeUnderSupportsIsNotMadeAgain() throws Exception {
    String order = UUID.randomUUID().toString();
    List<Object> answers = ReviewApps.chargeTwice(APP.app(), "charge_supports", order);
    assertThat(ReviewApps.charges(TABLE, order))
        .as("charge rows; answers %s", answers)
        .isEqualTo(1);
  }

  @Test
  void aRolledBackToolAnsweringItsOwnErrorIsRunAgain() throws Exception {
    String order = UUID.randomUUID().toString();
    List<Object> answers = ReviewApps.chargeTwice(APP.app(), "decline_rolled_back", order);
    assertThat(APP.app().getBean(Tools.class).runs(order))
        .as("runs; answers %s", answers)
        .isEqualTo(2);
    assertThat(answers.get(1).toString())
        .contains("declined " + order)
        .doesNotContain("idempotency_");
  }
}
