package dev.mcpgate.spring.review;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.mcp.Idempotent;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.ai.mcp.annotation.McpTool;
import org.springframework.ai.mcp.annotation.McpToolParam;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.interceptor.TransactionAspectSupport;
import reactor.core.publisher.Mono;

/**
 * Review P (of 1e3deb17/2947d1ba). On the async server a gated tool returns a {@code Mono}; with
 * the application's JDBC transaction manager, its {@code @Transactional} transaction spans the
 * method's body and ends when the method returns its Mono. {@code ToolExceptions.noting} reads that
 * end (COMMITTED or ROLLED_BACK) when the method returns, and then lets the Mono's signal overwrite
 * the note ({@code doOnSuccess}/{@code doOnError}):
 *
 * <ol>
 *   <li>the body charges, the transaction commits, the Mono then fails (the receipt could not be
 *       sent): the note becomes the failure, the key is freed and the retry charges again (the sync
 *       method's "threw after its transaction committed" is fenced);
 *   <li>the body charges, marks its transaction rollback-only and answers "charged": ROLLED_BACK is
 *       overwritten by RETURNED, so "charged" is stored and replayed though nothing was charged
 *       (the sync method is answered outcome unknown).
 * </ol>
 *
 * Needs PostgreSQL at 127.0.0.1:5432 (database test, user postgres).
 */
class ReactiveTransactionalToolReviewTest {
  static final String TABLE = ReviewApps.chargeTable("mg_reactive_tx");

  public static class Tools {
    private final JdbcTemplate jdbc;

    public Tools(JdbcTemplate jdbc) {
      this.jdbc = jdbc;
    }

    @McpTool(name = "charge_mono_committed", description = "Charge an order")
    @Idempotent
    @Transactional
    public Mono<String> chargeCommitted(@McpToolParam(description = "the order") String orderId) {
      jdbc.update("INSERT INTO " + TABLE + " VALUES (?)", orderId);
      return Mono.error(new IllegalStateException("the receipt could not be sent for " + orderId));
    }

    @McpTool(name = "charge_mono_rolled_back", description = "Charge an order")
    @Idempotent
    @Transactional
    public Mono<String> chargeRolledBack(@McpToolParam(description = "the order") String orderId) {
      jdbc.update("INSERT INTO " + TABLE + " VALUES (?)", orderId);
      TransactionAspectSupport.currentTransactionStatus().setRollbackOnly();
      return Mono.just("charged " + orderId);
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
      new ReviewApps.Running(
          () -> ReviewApps.postgresServer(Server.class, 5432, "spring.ai.mcp.server.type=ASYNC"));

  @Test
  void aCommittedChargeWhoseMonoFailedIsNotMadeAgain() throws Exception {
    String order = UUID.randomUUID().toString();
    List<Object> answers = ReviewApps.chargeTwice(APP.app(), "charge_mono_committed", order);
    assertThat(ReviewApps.charges(TABLE, order))
        .as("charge rows; answers %s", answers)
        .isEqualTo(1);
  }

  @Test
  void aRolledBackChargeIsNotReplayedAsDone() throws Exception {
    String order = UUID.randomUUID().toString();
    List<Object> answers = ReviewApps.chargeTwice(APP.app(), "charge_mono_rolled_back", order);
    assertThat(ReviewApps.charges(TABLE, order)).as("answers %s", answers).isZero();
    ReviewApps.noAnswerSays(answers, "charged ");
  }
}
