package dev.mcpgate.spring.review;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.mcp.Idempotent;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.util.List;
import java.util.UUID;
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
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * Review X (of e1720860): a Flux tool whose elements are made concurrently ({@code flatMap} onto
 * boundedElastic, each calling an {@code @Idempotent} step; the schedule hook carries the note
 * there). Spring AI reads {@code flux.next()}: the starter's {@code doOnNext} writes the tool's own
 * outcome for the first element, {@code next()} cancels upstream and passes the element on to
 * {@code checked()}, all on the first element's thread. A step still running on another thread
 * (top-level there, so it writes {@code slot[0]}) that returns in that window overwrites the tool's
 * note: the tool's fence (its charge rolled back as it returned) becomes the step's RETURNED, and
 * "done" is stored and replayed with nothing charged. Made deterministic by a latch in the tool's
 * own Flux: its {@code doOnCancel} (run by {@code next()} after the starter's {@code doOnNext},
 * before {@code checked()}) waits until the second element's step has returned; without the latch
 * it is a race any concurrent step can win. Needs PostgreSQL at 127.0.0.1:5432.
 */
class ConcurrentFluxStepAfterFirstElementReviewTest {
  static final String TABLE = ReviewApps.chargeTable("mg_flux_conc_step");

  public static class Tools {
    private final JdbcTemplate jdbc;
    @Autowired ObjectProvider<Tools> self;

    public Tools(JdbcTemplate jdbc) {
      this.jdbc = jdbc;
    }

    @McpTool(name = "charge_concurrent_flux", description = "Charge an order")
    @Idempotent
    @Transactional(propagation = Propagation.REQUIRES_NEW)
    public Flux<String> charge(@McpToolParam(description = "the order") String orderId) {
      jdbc.update("INSERT INTO " + TABLE + " VALUES (?)", orderId);
      TransactionAspectSupport.currentTransactionStatus().setRollbackOnly(); // not kept
      CountDownLatch firstOut = new CountDownLatch(1);
      CountDownLatch secondNoted = new CountDownLatch(1);
      return Flux.range(1, 2)
          .flatMap(
              i ->
                  i == 1
                      ? Mono.fromCallable(() -> self.getObject().note(orderId, i))
                          .subscribeOn(Schedulers.boundedElastic())
                      : Mono.<String>fromRunnable(
                              () -> {
                                await(firstOut); // the first element is on its way out
                                self.getObject().note(orderId, i); // writes the note
                                secondNoted.countDown();
                              })
                          .subscribeOn(Schedulers.boundedElastic()),
              2)
          .doOnCancel( // next() cancels after the starter's doOnNext, before checked()
              () -> {
                firstOut.countDown();
                await(secondNoted);
              });
    }

    @McpTool(name = "charge_concurrent_flux_committed", description = "Charge an order")
    @Idempotent
    @Transactional(propagation = Propagation.REQUIRES_NEW)
    public Flux<String> chargeCommitted(@McpToolParam(description = "the order") String orderId) {
      jdbc.update("INSERT INTO " + TABLE + " VALUES (?)", orderId); // committed
      CountDownLatch firstOut = new CountDownLatch(1);
      CountDownLatch secondNoted = new CountDownLatch(1);
      return Flux.range(1, 2)
          .flatMap(
              i ->
                  i == 1
                      ? Mono.fromCallable(() -> "part 1").subscribeOn(Schedulers.boundedElastic())
                      : Mono.<String>fromRunnable(
                              () -> {
                                await(firstOut);
                                self.getObject().tryNote(orderId); // rolled back, returned
                                secondNoted.countDown();
                              })
                          .subscribeOn(Schedulers.boundedElastic()),
              2)
          .doOnCancel(
              () -> {
                firstOut.countDown();
                await(secondNoted);
              });
    }

    /** A step whose own transaction is rolled back (nothing of it kept); it returns. */
    @Idempotent
    @Transactional(propagation = Propagation.REQUIRES_NEW)
    public String tryNote(String orderId) {
      jdbc.update("INSERT INTO " + TABLE + " VALUES (?)", "try-" + orderId);
      TransactionAspectSupport.currentTransactionStatus().setRollbackOnly();
      return "not noted";
    }

    /** A step: notes one part of the order in a transaction of its own (committed). */
    @Idempotent
    @Transactional(propagation = Propagation.REQUIRES_NEW)
    public String note(String orderId, int part) {
      jdbc.update("INSERT INTO " + TABLE + " VALUES (?)", "step-" + part + "-" + orderId);
      return "part " + part;
    }

    private static void await(CountDownLatch latch) {
      try {
        latch.await(10, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
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
  void aRolledBackChargeIsNotStoredAsDoneBecauseAConcurrentStepReturned() throws Exception {
    String order = UUID.randomUUID().toString();
    List<Object> answers = ReviewApps.chargeTwice(APP.app(), "charge_concurrent_flux", order);
    assertThat(ReviewApps.charges(TABLE, order)).as("answers %s", answers).isZero();
    assertThat(ReviewApps.charges(TABLE, "step-2-" + order)).as("answers %s", answers).isPositive();
    ReviewApps.noAnswerIsASuccess(answers);
  }

  @Test
  void aCommittedChargeIsNotFencedBecauseAConcurrentStepRolledBack() throws Exception {
    String order = UUID.randomUUID().toString();
    List<Object> answers =
        ReviewApps.chargeTwice(APP.app(), "charge_concurrent_flux_committed", order);
    assertThat(ReviewApps.charges(TABLE, order)).as("answers %s", answers).isEqualTo(1);
    assertThat(answers)
        .as("its charge committed and its Flux gave an element: it is done, and replayed")
        .allSatisfy(
            a ->
                assertThat(a)
                    .isInstanceOfSatisfying(
                        CallToolResult.class,
                        r -> assertThat(r.isError()).as("%s", r).isNotEqualTo(Boolean.TRUE)));
  }
}
