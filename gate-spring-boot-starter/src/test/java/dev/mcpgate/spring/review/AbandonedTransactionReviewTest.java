package dev.mcpgate.spring.review;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.mcp.Idempotent;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.aopalliance.intercept.MethodInterceptor;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.ai.mcp.annotation.McpTool;
import org.springframework.ai.mcp.annotation.McpToolParam;
import org.springframework.aop.framework.Advised;
import org.springframework.aop.support.DefaultPointcutAdvisor;
import org.springframework.aop.support.annotation.AnnotationMatchingPointcut;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.beans.factory.support.BeanDefinitionRegistryPostProcessor;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.annotation.Transactional;

/**
 * The Spring side of review Y's finding ({@code TransactionReadingReviewTest} on Quarkus): a time
 * limiter of the application's, between the starter's advice and {@code @Transactional}'s, runs the
 * rest of the chain on another thread and stops waiting after 300 ms, answering an error result of
 * its own or throwing an exception of the application's. The method goes on: its transaction
 * commits the charge some 600 ms after the gate was told the call failed. The starter's inner
 * advice ran on that other thread, found no watch there (a thread-local of the handler's thread),
 * and registered nothing: the key was freed and the caller's retry charged again. Fixed: the watch
 * travels with the invocation (a user attribute, shared with its copies), so the transaction is
 * registered, and a transaction still open when the tool answers fences the key. An attempt the
 * time limiter's thread begins only after it gave up ({@code charge_late}) is refused: it would run
 * outside the call's claim. Needs PostgreSQL at 127.0.0.1:5432 (database test, user postgres).
 */
class AbandonedTransactionReviewTest {
  static final String TABLE = ReviewApps.chargeTable("mg_abandoned_transaction");

  /** Marks a method the time limiter runs. */
  @java.lang.annotation.Retention(java.lang.annotation.RetentionPolicy.RUNTIME)
  @java.lang.annotation.Target(java.lang.annotation.ElementType.METHOD)
  @interface TimeLimited {}

  public static class Tools {
    private final JdbcTemplate jdbc;

    public Tools(JdbcTemplate jdbc) {
      this.jdbc = jdbc;
    }

    @McpTool(name = "charge_slowly", description = "Charge an order")
    @Idempotent
    @TimeLimited
    @Transactional
    public CallToolResult chargeSlowly(@McpToolParam(description = "the order") String orderId)
        throws InterruptedException {
      return chargeAndWait(orderId);
    }

    @McpTool(name = "charge_slowly_throwing", description = "Charge an order")
    @Idempotent
    @TimeLimited
    @Transactional
    public CallToolResult chargeSlowlyThrowing(
        @McpToolParam(description = "the order") String orderId) throws InterruptedException {
      return chargeAndWait(orderId);
    }

    @McpTool(name = "charge_late", description = "Charge an order")
    @Idempotent
    @TimeLimited
    @Transactional
    public CallToolResult chargeLate(@McpToolParam(description = "the order") String orderId) {
      jdbc.update("INSERT INTO " + TABLE + " VALUES (?)", orderId);
      return CallToolResult.builder().addTextContent("charged " + orderId).build();
    }

    private CallToolResult chargeAndWait(String orderId) throws InterruptedException {
      jdbc.update("INSERT INTO " + TABLE + " VALUES (?)", orderId);
      Thread.sleep(900);
      return CallToolResult.builder().addTextContent("charged " + orderId).build();
    }
  }

  /**
   * Runs the rest of the chain on the common pool and gives up after 300 ms: a fallback error
   * result, or (for a method whose name ends in {@code Throwing}) an exception of the
   * application's. For a method whose name ends in {@code Late}, the pool begins the rest 600 ms
   * late (busy).
   */
  static final MethodInterceptor TIME_LIMITER =
      invocation -> {
        CompletableFuture<Object> run =
            CompletableFuture.supplyAsync(
                () -> {
                  try {
                    if (invocation.getMethod().getName().endsWith("Late")) {
                      Thread.sleep(600);
                    }
                    return invocation.proceed();
                  } catch (Throwable t) {
                    throw new CompletionException(t);
                  }
                });
        try {
          return run.get(300, TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
          String name = invocation.getMethod().getName();
          if (name.endsWith("Throwing")) {
            throw new IllegalStateException(name + " did not finish in time");
          }
          return CallToolResult.builder()
              .addTextContent(name + " did not finish in time")
              .isError(true)
              .build();
        } catch (ExecutionException e) {
          throw e.getCause();
        }
      };

  /** Puts the time limiter just inside the starter's outer advice, outside the transaction's. */
  static class TimeLimiter implements BeanPostProcessor {
    @Override
    public Object postProcessAfterInitialization(Object bean, String beanName) {
      if (bean instanceof Advised advised && bean instanceof Tools) {
        advised.addAdvisor( // after the starter's outer advice, before the transaction's
            1,
            new DefaultPointcutAdvisor(
                AnnotationMatchingPointcut.forMethodAnnotation(TimeLimited.class), TIME_LIMITER));
      }
      return bean;
    }
  }

  @EnableAutoConfiguration
  @Import(ReviewApps.OpenSecurity.class)
  public static class Server {
    @Bean
    static BeanDefinitionRegistryPostProcessor registeringTimeLimiter() {
      return registry ->
          registry.registerBeanDefinition(
              "timeLimiter", new RootBeanDefinition(TimeLimiter.class, TimeLimiter::new));
    }

    @Bean
    Tools tools(JdbcTemplate jdbc) {
      return new Tools(jdbc);
    }
  }

  @RegisterExtension
  static final ReviewApps.Running APP =
      new ReviewApps.Running(() -> ReviewApps.postgresServer(Server.class, 5432));

  @Test
  void anAttemptBegunAfterTheToolAnsweredDoesNotRun() throws Exception {
    String order = UUID.randomUUID().toString();
    List<Object> answers = ReviewApps.chargeTwice(APP.app(), "charge_late", order);
    Thread.sleep(1500); // both late attempts have begun
    assertThat(ReviewApps.charges(TABLE, order))
        .as("charge rows; answers %s", answers)
        .isEqualTo(0);
  }

  @ParameterizedTest
  @ValueSource(strings = {"charge_slowly", "charge_slowly_throwing"})
  void aTransactionStillOpenWhenTheToolAnswersFencesTheKey(String tool) throws Exception {
    String order = UUID.randomUUID().toString();
    List<Object> answers = ReviewApps.chargeTwice(APP.app(), tool, order);
    Thread.sleep(1500); // the abandoned attempt's transaction has ended
    assertThat(ReviewApps.charges(TABLE, order))
        .as("charge rows; answers %s", answers)
        .isEqualTo(1);
    assertThat(String.valueOf(answers.get(1)))
        .as("answers %s", answers)
        .contains("idempotency_outcome_unknown");
  }
}
