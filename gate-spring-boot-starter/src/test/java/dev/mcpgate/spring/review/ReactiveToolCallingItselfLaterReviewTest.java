package dev.mcpgate.spring.review;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.mcp.Idempotent;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.aopalliance.intercept.MethodInterceptor;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.ai.mcp.annotation.McpTool;
import org.springframework.ai.mcp.annotation.McpToolParam;
import org.springframework.aop.ProxyMethodInvocation;
import org.springframework.aop.framework.Advised;
import org.springframework.aop.support.DefaultPointcutAdvisor;
import org.springframework.aop.support.NameMatchMethodPointcut;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.beans.factory.support.BeanDefinitionRegistryPostProcessor;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.annotation.Propagation;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.interceptor.TransactionAspectSupport;
import reactor.core.publisher.Mono;

/**
 * Review U (of c461cbc0), fixed: a watch is shared only with the next attempt of an invocation that
 * threw ({@code WatchedInvocation.threw}). The finding: {@link RecursiveToolRolledBackReviewTest}'s
 * recursive step, made by a tool that returns a {@code Mono} (JDBC's transaction manager: its
 * transaction ends when the method returns, {@link ReactiveTransactionalToolReviewTest}) from
 * inside that Mono, i.e. when it is subscribed, after the tool's own attempt has left {@code
 * inside} ({@code running} is false again). c461cbc0 hands the step the handler call's {@code
 * WatchedInvocation} ({@code slot[1]}, same bean, same method, {@code ending} empty on the
 * subscribing thread) as if it were a retry's next attempt: the step's transaction becomes the
 * tool's latest. The tool's own transaction was rolled back, the step's committed: the tool's
 * "charged" is stored and replayed though its charge was rolled back. (Before c461cbc0 the step's
 * noting made a watch of its own and the tool was fenced.) The other way round, a step rolled back
 * fences a committed charge. Needs PostgreSQL at 127.0.0.1:5432 (database test, user postgres).
 */
class ReactiveToolCallingItselfLaterReviewTest {
  static final String TABLE = ReviewApps.chargeTable("mg_reactive_recursive");

  public static class Tools {
    private final JdbcTemplate jdbc;
    @Autowired ObjectProvider<Tools> self;

    public Tools(JdbcTemplate jdbc) {
      this.jdbc = jdbc;
    }

    @McpTool(name = "charge_mono_recursive", description = "Charge an order")
    @Idempotent
    @Transactional(propagation = Propagation.REQUIRES_NEW)
    public Mono<String> charge(
        @McpToolParam(description = "the order") String orderId,
        @McpToolParam(description = "internal: a step", required = false) Boolean step) {
      if (Boolean.TRUE.equals(step)) {
        jdbc.update("INSERT INTO " + TABLE + " VALUES (?)", "step-" + orderId); // committed
        return Mono.just("noted");
      }
      jdbc.update("INSERT INTO " + TABLE + " VALUES (?)", orderId);
      // a later check fails: the tool rolls its charge back, and answers as if it had charged
      TransactionAspectSupport.currentTransactionStatus().setRollbackOnly();
      return Mono.defer(() -> self.getObject().charge(orderId, true))
          .map(noted -> "charged " + orderId);
    }

    @McpTool(name = "charge_mono_with_dropped_step", description = "Charge an order")
    @Idempotent
    @Transactional(propagation = Propagation.REQUIRES_NEW)
    public Mono<String> chargeWithDroppedStep(
        @McpToolParam(description = "the order") String orderId,
        @McpToolParam(description = "internal: a step", required = false) Boolean step) {
      if (Boolean.TRUE.equals(step)) {
        jdbc.update("INSERT INTO " + TABLE + " VALUES (?)", "step-" + orderId);
        TransactionAspectSupport.currentTransactionStatus().setRollbackOnly(); // step dropped
        return Mono.just("dropped");
      }
      jdbc.update("INSERT INTO " + TABLE + " VALUES (?)", orderId); // committed
      return Mono.defer(() -> self.getObject().chargeWithDroppedStep(orderId, true))
          .map(dropped -> "charged " + orderId);
    }

    /** {@link #charge}, whose first attempt fails at once ({@link OnceAgain} calls it again). */
    @McpTool(name = "charge_mono_retried_recursive", description = "Charge an order")
    @Idempotent
    @Transactional(propagation = Propagation.REQUIRES_NEW)
    public Mono<String> retriedCharge(
        @McpToolParam(description = "the order") String orderId,
        @McpToolParam(description = "internal: a step", required = false) Boolean step) {
      if (Boolean.TRUE.equals(step)) {
        jdbc.update("INSERT INTO " + TABLE + " VALUES (?)", "step-" + orderId); // committed
        return Mono.just("noted");
      }
      jdbc.update("INSERT INTO " + TABLE + " VALUES (?)", orderId);
      if (ATTEMPTS.computeIfAbsent(orderId, k -> new AtomicInteger()).incrementAndGet() == 1) {
        throw new IllegalStateException("lock timeout on the account row"); // rolled back
      }
      TransactionAspectSupport.currentTransactionStatus().setRollbackOnly();
      return Mono.defer(() -> self.getObject().retriedCharge(orderId, true))
          .map(noted -> "charged " + orderId);
    }
  }

  static final Map<String, AtomicInteger> ATTEMPTS = new ConcurrentHashMap<>();

  /**
   * A retry advice of the application's, outermost (added after the starter's post-processor ran):
   * calls {@code retriedCharge} once more when it throws an {@code IllegalStateException}.
   */
  static class OnceAgain implements BeanPostProcessor {
    @Override
    public Object postProcessAfterInitialization(Object bean, String beanName) {
      if (bean instanceof Advised advised && bean instanceof Tools) {
        NameMatchMethodPointcut retried = new NameMatchMethodPointcut();
        retried.setMappedName("retriedCharge");
        advised.addAdvisor(
            0,
            new DefaultPointcutAdvisor(
                retried,
                (MethodInterceptor)
                    invocation -> {
                      try {
                        return ((ProxyMethodInvocation) invocation).invocableClone().proceed();
                      } catch (IllegalStateException first) {
                        return ((ProxyMethodInvocation) invocation).invocableClone().proceed();
                      }
                    }));
      }
      return bean;
    }
  }

  @EnableAutoConfiguration
  @Import(ReviewApps.OpenSecurity.class)
  public static class Server {
    /** Registers {@link OnceAgain} after the auto-configuration's beans, so it runs after them. */
    @Bean
    static BeanDefinitionRegistryPostProcessor registeringOnceAgain() {
      return registry ->
          registry.registerBeanDefinition(
              "onceAgain", new RootBeanDefinition(OnceAgain.class, OnceAgain::new));
    }

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
  void aRolledBackChargeIsNotReplayedAsDone() throws Exception {
    String order = UUID.randomUUID().toString();
    List<Object> answers = ReviewApps.chargeTwice(APP.app(), "charge_mono_recursive", order);
    assertThat(ReviewApps.charges(TABLE, order)).as("answers %s", answers).isZero();
    assertThat(ReviewApps.charges(TABLE, "step-" + order)).as("answers %s", answers).isEqualTo(1);
    ReviewApps.noAnswerSays(answers, "charged ");
  }

  @Test
  void aCommittedChargeWhoseLaterStepRolledBackIsReplayed() throws Exception {
    String order = UUID.randomUUID().toString();
    List<Object> answers =
        ReviewApps.chargeTwice(APP.app(), "charge_mono_with_dropped_step", order);
    assertThat(ReviewApps.charges(TABLE, order)).as("answers %s", answers).isEqualTo(1);
    assertThat(ReviewApps.charges(TABLE, "step-" + order)).as("answers %s", answers).isZero();
    ReviewApps.answeredAndReplayed(answers, "charged " + order);
  }

  /**
   * A retry advice outside the starter's calls the tool again after its first attempt threw: that
   * attempt's watch serves the second. The second rolls its charge back and returns a Mono whose
   * step on itself commits: that step is not a third attempt (the second returned), and is watched
   * apart. Before, it took the shared watch, and "charged" was stored with nothing charged.
   */
  @Test
  void aStepAfterARetriedAttemptReturnedIsNotItsNextAttempt() throws Exception {
    String order = UUID.randomUUID().toString();
    List<Object> answers =
        ReviewApps.chargeTwice(APP.app(), "charge_mono_retried_recursive", order);
    assertThat(ATTEMPTS.get(order)).as("answers %s", answers).hasValue(2);
    assertThat(ReviewApps.charges(TABLE, order)).as("answers %s", answers).isZero();
    assertThat(ReviewApps.charges(TABLE, "step-" + order)).as("answers %s", answers).isEqualTo(1);
    ReviewApps.noAnswerSays(answers, "charged ");
  }
}
