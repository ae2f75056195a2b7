package dev.mcpgate.spring.review;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.mcp.Idempotent;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
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
import reactor.core.publisher.Flux;

/**
 * Review W (of a0561e81), fixed: the starter writes a Flux tool's outcome again as its Flux
 * completes, so the tool's own is written last. The finding: a tool returning {@code Flux<Void>} on
 * an async server: Spring AI reads it with {@code flux.then(...)}, so the starter's {@code
 * doOnNext} never fires and the tool's own outcome is written only when the method returns; an
 * {@code @Idempotent} method the Flux calls when subscribed (ending empty: top-level, chained)
 * writes the note last and is read as the tool's. (1) The tool's charge is rolled back (its return
 * fenced), a step it calls from the Flux commits: "done" is stored and replayed with nothing
 * charged (pre-existing, the Flux analogue of ReactiveToolCallingItselfLaterReviewTest). (2) Since
 * a0561e81 (the chain): the tool's charge commits, a step it calls answers an error result of its
 * own: the step's error is read against the tool's commit as an earlier attempt's and fences the
 * tool's successful charge (before, "done"). Needs PostgreSQL at 127.0.0.1:5432 (database test,
 * user postgres).
 */
class VoidFluxToolStepReviewTest {
  static final String TABLE = ReviewApps.chargeTable("mg_void_flux_step");

  public static class Tools {
    private final JdbcTemplate jdbc;
    @Autowired ObjectProvider<Tools> self;

    public Tools(JdbcTemplate jdbc) {
      this.jdbc = jdbc;
    }

    @McpTool(name = "charge_void_flux_rolled_back", description = "Charge an order")
    @Idempotent
    @Transactional(propagation = Propagation.REQUIRES_NEW)
    public Flux<Void> charge(@McpToolParam(description = "the order") String orderId) {
      jdbc.update("INSERT INTO " + TABLE + " VALUES (?)", orderId);
      TransactionAspectSupport.currentTransactionStatus().setRollbackOnly(); // not kept
      return Flux.defer(() -> self.getObject().note(orderId));
    }

    /** A step: notes the order in a transaction of its own (committed). */
    @Idempotent
    @Transactional(propagation = Propagation.REQUIRES_NEW)
    public Flux<Void> note(String orderId) {
      jdbc.update("INSERT INTO " + TABLE + " VALUES (?)", "step-" + orderId);
      return Flux.empty();
    }

    @McpTool(name = "charge_void_flux_step_error", description = "Charge an order")
    @Idempotent
    @Transactional(propagation = Propagation.REQUIRES_NEW)
    public Flux<Void> chargeThenCheck(@McpToolParam(description = "the order") String orderId) {
      jdbc.update("INSERT INTO " + TABLE + " VALUES (?)", orderId); // committed
      return Flux.defer(
          () -> {
            self.getObject().check(orderId); // its error result is logged, not the tool's
            return Flux.<Void>empty();
          });
    }

    /** A check with an error result of its own (an @Idempotent tool of the same bean). */
    @McpTool(name = "check_order", description = "Check an order")
    @Idempotent
    public CallToolResult check(@McpToolParam(description = "the order") String orderId) {
      return CallToolResult.builder().isError(true).addTextContent("no receipt yet").build();
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
  void aRolledBackChargeIsNotStoredAsDoneBecauseAStepCommitted() throws Exception {
    String order = UUID.randomUUID().toString();
    List<Object> answers = ReviewApps.chargeTwice(APP.app(), "charge_void_flux_rolled_back", order);
    assertThat(ReviewApps.charges(TABLE, order)).as("answers %s", answers).isZero();
    assertThat(ReviewApps.charges(TABLE, "step-" + order)).as("answers %s", answers).isEqualTo(1);
    ReviewApps.noAnswerIsASuccess(answers);
  }

  @Test
  void aCommittedChargeIsNotFencedByAStepsErrorResult() throws Exception {
    String order = UUID.randomUUID().toString();
    List<Object> answers = ReviewApps.chargeTwice(APP.app(), "charge_void_flux_step_error", order);
    assertThat(ReviewApps.charges(TABLE, order)).as("answers %s", answers).isEqualTo(1);
    assertThat(answers)
        .as("its charge committed and it returned: it is done, and replayed")
        .allSatisfy(
            a ->
                assertThat(a)
                    .isInstanceOfSatisfying(
                        CallToolResult.class,
                        r -> assertThat(r.isError()).as("%s", r).isNotEqualTo(Boolean.TRUE)));
    assertThat(((CallToolResult) answers.get(1)).meta())
        .containsEntry("dev.mcpgate/replayed", true);
  }
}
