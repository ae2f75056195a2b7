package dev.mcpgate.spring.review;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.mcp.Idempotent;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.ai.mcp.annotation.McpTool;
import org.springframework.ai.mcp.annotation.McpToolParam;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.annotation.Propagation;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.interceptor.TransactionAspectSupport;

/**
 * Review T (of c80f6c22), fixed: a call of the same method on the same bean while its attempt runs
 * is the method calling itself, and its transaction is not watched ({@code
 * WatchedInvocation.running}). The finding: {@code WatchedInvocation.is} takes a call of the same
 * method on the same bean, made by the tool method through its proxy (a recursive step), for a
 * retry's copy of the handler's invocation: {@code inside}'s advice tells {@code
 * TransactionEnds.begun()} for the step's transaction too. {@code TransactionEnds} reads a return
 * by the end of the latest transaction <em>begun</em>: the step's own (REQUIRES_NEW, committed),
 * which ends first; the tool's transaction, which the tool marked rollback-only and which ends
 * after it, is "an earlier transaction's late end" and is ignored. The tool's "charged" is stored
 * and replayed though its charge was rolled back (the same tool calling a REQUIRES_NEW method of
 * another bean is fenced: {@code TransactionEndMisreadReviewTest}). The old code (c80f6c22~1)
 * numbered the same way on Spring: this is carried over, not new.
 *
 * <p>Needs PostgreSQL at 127.0.0.1:5432 (database test, user postgres).
 */
class RecursiveToolRolledBackReviewTest {
  static final String TABLE = ReviewApps.chargeTable("mg_recursive_rb");

  public static class Tools {
    private final JdbcTemplate jdbc;
    @Autowired ObjectProvider<Tools> self;

    public Tools(JdbcTemplate jdbc) {
      this.jdbc = jdbc;
    }

    @McpTool(name = "charge_recursive", description = "Charge an order")
    @Idempotent
    @Transactional(propagation = Propagation.REQUIRES_NEW)
    public String charge(
        @McpToolParam(description = "the order") String orderId,
        @McpToolParam(description = "internal: a step", required = false) Boolean step) {
      if (Boolean.TRUE.equals(step)) {
        jdbc.update("INSERT INTO " + TABLE + " VALUES (?)", "step-" + orderId); // committed
        return "noted";
      }
      jdbc.update("INSERT INTO " + TABLE + " VALUES (?)", orderId);
      self.getObject().charge(orderId, true); // a step of its own, through the proxy
      // a later check fails: the tool rolls its charge back, and answers as if it had charged
      TransactionAspectSupport.currentTransactionStatus().setRollbackOnly();
      return "charged " + orderId;
    }

    @McpTool(name = "charge_with_dropped_step", description = "Charge an order")
    @Idempotent
    @Transactional(propagation = Propagation.REQUIRES_NEW)
    public String chargeWithDroppedStep(
        @McpToolParam(description = "the order") String orderId,
        @McpToolParam(description = "internal: a step", required = false) Boolean step) {
      if (Boolean.TRUE.equals(step)) {
        jdbc.update("INSERT INTO " + TABLE + " VALUES (?)", "step-" + orderId);
        // the step's own transaction is rolled back: the step is dropped, the charge stands
        TransactionAspectSupport.currentTransactionStatus().setRollbackOnly();
        return "dropped";
      }
      jdbc.update("INSERT INTO " + TABLE + " VALUES (?)", orderId);
      self.getObject().chargeWithDroppedStep(orderId, true);
      return "charged " + orderId;
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

  @RegisterExtension
  static final ReviewApps.Running APP =
      new ReviewApps.Running(() -> ReviewApps.postgresServer(Server.class, 5432));

  @Test
  void aRolledBackChargeIsNotReplayedAsDone() throws Exception {
    String order = UUID.randomUUID().toString();
    List<Object> answers = ReviewApps.chargeTwice(APP.app(), "charge_recursive", order);
    assertThat(ReviewApps.charges(TABLE, order)).as("answers %s", answers).isZero();
    assertThat(ReviewApps.charges(TABLE, "step-" + order)).as("answers %s", answers).isEqualTo(1);
    ReviewApps.noAnswerSays(answers, "charged ");
  }

  /**
   * The other way round: the tool's own transaction commits its charge and the step it called on
   * itself is rolled back. The step's end is not the tool's: its "charged" is true, stored, and
   * replayed (before, the step's rollback was read as the tool's, and the call fenced as unknown).
   */
  @Test
  void aCommittedChargeWhoseOwnStepRolledBackIsReplayed() throws Exception {
    String order = UUID.randomUUID().toString();
    List<Object> answers = ReviewApps.chargeTwice(APP.app(), "charge_with_dropped_step", order);
    assertThat(ReviewApps.charges(TABLE, order)).as("answers %s", answers).isEqualTo(1);
    assertThat(ReviewApps.charges(TABLE, "step-" + order)).as("answers %s", answers).isZero();
    ReviewApps.answeredAndReplayed(answers, "charged " + order);
  }
}
