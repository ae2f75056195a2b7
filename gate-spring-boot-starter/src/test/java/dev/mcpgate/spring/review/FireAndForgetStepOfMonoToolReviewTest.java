package dev.mcpgate.spring.review;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.mcp.Idempotent;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
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
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * Review X (of e1720860), fixed: a noted invocation of another method, or of the same one while the
 * handler's has not ended, is a step of its action and writes no note ({@code
 * WatchedInvocation.isStep}). The finding: a Mono tool that fires a step and forgets it ({@code
 * subscribeOn(boundedElastic()).subscribe()}; the schedule hook carries the note there, where the
 * step is top-level and writes {@code slot[0]}). The starter's {@code doOnSuccess} writes the
 * tool's own outcome, then Spring AI converts the value (Jackson, on the same thread) and {@code
 * checked()} reads the note: a step returning in between overwrites the tool's fence (its charge
 * rolled back) with RETURNED, and "done" is stored and replayed with nothing charged. Made
 * deterministic by a latch in the tool's own value (a getter Jackson calls waits until the step
 * returned); without it, a race. Needs PostgreSQL at 127.0.0.1:5432.
 */
class FireAndForgetStepOfMonoToolReviewTest {
  static final String TABLE = ReviewApps.chargeTable("mg_mono_forget_step");

  /** Per order: the step entered, the tool's value is out, the step returned. */
  static final Map<String, CountDownLatch[]> LATCHES = new ConcurrentHashMap<>();

  /** The tool's value: Jackson reads its status after the starter's doOnSuccess. */
  public static class Receipt {
    private final CountDownLatch valueOut;
    private final CountDownLatch stepNoted;

    Receipt(CountDownLatch valueOut, CountDownLatch stepNoted) {
      this.valueOut = valueOut;
      this.stepNoted = stepNoted;
    }

    public String getStatus() throws InterruptedException {
      valueOut.countDown(); // past the starter's doOnSuccess, before checked()
      stepNoted.await(10, TimeUnit.SECONDS);
      return "charged";
    }
  }

  public static class Tools {
    private final JdbcTemplate jdbc;
    @Autowired ObjectProvider<Tools> self;

    public Tools(JdbcTemplate jdbc) {
      this.jdbc = jdbc;
    }

    @McpTool(name = "charge_mono_fire_and_forget", description = "Charge an order")
    @Idempotent
    @Transactional(propagation = Propagation.REQUIRES_NEW)
    public Mono<Receipt> charge(@McpToolParam(description = "the order") String orderId) {
      jdbc.update("INSERT INTO " + TABLE + " VALUES (?)", orderId);
      TransactionAspectSupport.currentTransactionStatus().setRollbackOnly(); // not kept
      CountDownLatch valueOut = new CountDownLatch(1);
      CountDownLatch stepNoted = new CountDownLatch(1);
      return Mono.fromCallable(
          () -> {
            Mono.fromRunnable(
                    () -> {
                      try {
                        valueOut.await(10, TimeUnit.SECONDS);
                      } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                      }
                      self.getObject().note(orderId); // writes the note
                      stepNoted.countDown();
                    })
                .subscribeOn(Schedulers.boundedElastic())
                .subscribe(); // fire and forget
            return new Receipt(valueOut, stepNoted);
          });
    }

    /**
     * {@link #charge}, whose forgotten step is itself: the step enters the method while the tool's
     * Mono runs and returns after the starter's doOnSuccess, as a retry advice's next call would
     * not (one begins after the last ended).
     */
    @McpTool(name = "charge_mono_fire_and_forget_itself", description = "Charge an order")
    @Idempotent
    @Transactional(propagation = Propagation.REQUIRES_NEW)
    public Mono<Receipt> chargeItself(
        @McpToolParam(description = "the order") String orderId,
        @McpToolParam(description = "internal: a step", required = false) Boolean step)
        throws InterruptedException {
      CountDownLatch[] latches = LATCHES.get(orderId);
      if (Boolean.TRUE.equals(step)) {
        latches[0].countDown(); // entered while the tool's Mono runs
        latches[1].await(10, TimeUnit.SECONDS); // the tool's value is out
        jdbc.update("INSERT INTO " + TABLE + " VALUES (?)", "step-" + orderId); // committed
        return Mono.empty();
      }
      jdbc.update("INSERT INTO " + TABLE + " VALUES (?)", orderId);
      TransactionAspectSupport.currentTransactionStatus().setRollbackOnly(); // not kept
      return Mono.fromCallable(
          () -> {
            Mono.fromRunnable(
                    () -> {
                      try {
                        self.getObject().chargeItself(orderId, true);
                      } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                      }
                      latches[2].countDown();
                    })
                .subscribeOn(Schedulers.boundedElastic())
                .subscribe(); // fire and forget
            latches[0].await(10, TimeUnit.SECONDS);
            return new Receipt(latches[1], latches[2]);
          });
    }

    /** A step: notes the order in a transaction of its own (committed). */
    @Idempotent
    @Transactional(propagation = Propagation.REQUIRES_NEW)
    public String note(String orderId) {
      jdbc.update("INSERT INTO " + TABLE + " VALUES (?)", "step-" + orderId);
      return "noted";
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
  void aRolledBackChargeIsNotStoredAsDoneBecauseAForgottenStepReturned() throws Exception {
    String order = UUID.randomUUID().toString();
    List<Object> answers = ReviewApps.chargeTwice(APP.app(), "charge_mono_fire_and_forget", order);
    assertThat(ReviewApps.charges(TABLE, order)).as("answers %s", answers).isZero();
    assertThat(ReviewApps.charges(TABLE, "step-" + order)).as("answers %s", answers).isPositive();
    ReviewApps.noAnswerIsASuccess(answers);
  }

  @Test
  void aRolledBackChargeIsNotStoredAsDoneBecauseItsForgottenCallOfItselfReturned()
      throws Exception {
    String order = UUID.randomUUID().toString();
    LATCHES.put(
        order,
        new CountDownLatch[] {new CountDownLatch(1), new CountDownLatch(1), new CountDownLatch(1)});
    List<Object> answers =
        ReviewApps.chargeTwice(APP.app(), "charge_mono_fire_and_forget_itself", order);
    assertThat(ReviewApps.charges(TABLE, order)).as("answers %s", answers).isZero();
    assertThat(ReviewApps.charges(TABLE, "step-" + order)).as("answers %s", answers).isPositive();
    ReviewApps.noAnswerIsASuccess(answers);
  }
}
