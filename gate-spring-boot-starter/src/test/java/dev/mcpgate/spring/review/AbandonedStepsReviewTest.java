package dev.mcpgate.spring.review;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.mcp.Idempotent;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.aopalliance.intercept.MethodInterceptor;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.ai.mcp.annotation.McpTool;
import org.springframework.ai.mcp.annotation.McpToolParam;
import org.springframework.aop.ProxyMethodInvocation;
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
 * Review AA of the abandoned-transaction fix. (1) A tool that is not {@code @Transactional} behind
 * the same time limiter: its method still runs on the limiter's thread when the limiter answers a
 * fallback error result; nothing counts it as open, the key is freed, and the retry charges again.
 * (2) A retry advice OUTSIDE the starter's (Spring Retry's way: {@code invocableClone().proceed()}
 * per attempt) shares the user-attribute map among its clones: the first attempt's late worker
 * finds the second attempt's watch, which is running, and proceeds unwatched and unrefused: two
 * charges under one stored success. Fixed: each attempt counts as running while it runs (innermost,
 * with or without a transaction), a copy finds the watch attached to itself first, and a watch's
 * attempt is nested only on the thread it runs on. Needs PostgreSQL at 127.0.0.1:5432.
 */
class AbandonedStepsReviewTest {
  static final String TABLE = ReviewApps.chargeTable("mg_abandoned_steps");

  @java.lang.annotation.Retention(java.lang.annotation.RetentionPolicy.RUNTIME)
  @java.lang.annotation.Target(java.lang.annotation.ElementType.METHOD)
  @interface TimeLimited {}

  @java.lang.annotation.Retention(java.lang.annotation.RetentionPolicy.RUNTIME)
  @java.lang.annotation.Target(java.lang.annotation.ElementType.METHOD)
  @interface Retried {}

  static final java.util.Set<Object> LATE = java.util.concurrent.ConcurrentHashMap.newKeySet();

  public static class Tools {
    private final JdbcTemplate jdbc;

    public Tools(JdbcTemplate jdbc) {
      this.jdbc = jdbc;
    }

    /** Not transactional: an auto-committed insert after a slow downstream step. */
    @McpTool(name = "charge_plain", description = "Charge an order")
    @Idempotent
    @TimeLimited
    public CallToolResult chargePlain(@McpToolParam(description = "the order") String orderId)
        throws InterruptedException {
      Thread.sleep(600);
      jdbc.update("INSERT INTO " + TABLE + " VALUES (?)", orderId);
      return CallToolResult.builder().addTextContent("charged " + orderId).build();
    }

    @McpTool(name = "charge_retried", description = "Charge an order")
    @Idempotent
    @Retried
    @TimeLimited
    @Transactional
    public CallToolResult chargeRetried(@McpToolParam(description = "the order") String orderId)
        throws InterruptedException {
      jdbc.update("INSERT INTO " + TABLE + " VALUES (?)", orderId);
      Thread.sleep(800);
      return CallToolResult.builder().addTextContent("charged " + orderId).build();
    }
  }

  /**
   * Runs the rest on a new thread, gives up after 300 ms: a fallback error result (an ISE for the
   * retried tool). The retried tool's first worker begins 400 ms late (pool busy).
   */
  static final MethodInterceptor TIME_LIMITER =
      invocation -> {
        boolean retried = invocation.getMethod().getName().equals("chargeRetried");
        boolean late = retried && LATE.add(invocation.getArguments()[0]);
        CompletableFuture<Object> run = new CompletableFuture<>();
        new Thread(
                () -> {
                  try {
                    if (late) {
                      Thread.sleep(1500);
                    }
                    run.complete(invocation.proceed());
                  } catch (Throwable t) {
                    run.completeExceptionally(t);
                  }
                })
            .start();
        try {
          return run.get(retried ? 1000 : 300, TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
          if (retried) {
            throw new IllegalStateException("did not finish in time");
          }
          return CallToolResult.builder()
              .addTextContent("did not finish in time")
              .isError(true)
              .build();
        } catch (ExecutionException e) {
          throw e.getCause();
        }
      };

  /** Retries once on IllegalStateException, each attempt a clone (as Spring Retry does). */
  static final MethodInterceptor RETRY =
      invocation -> {
        try {
          return ((ProxyMethodInvocation) invocation).invocableClone().proceed();
        } catch (IllegalStateException e) {
          return ((ProxyMethodInvocation) invocation).invocableClone().proceed();
        }
      };

  static class Advices implements BeanPostProcessor {
    @Override
    public Object postProcessAfterInitialization(Object bean, String beanName) {
      if (bean instanceof Advised advised && bean instanceof Tools) {
        advised.addAdvisor( // outside the starter's outer advice
            0,
            new DefaultPointcutAdvisor(
                AnnotationMatchingPointcut.forMethodAnnotation(Retried.class), RETRY));
        advised.addAdvisor( // after the starter's outer advice, before the transaction's
            2,
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
    static BeanDefinitionRegistryPostProcessor registeringAdvices() {
      return registry ->
          registry.registerBeanDefinition(
              "reviewAdvices", new RootBeanDefinition(Advices.class, Advices::new));
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
  void aNonTransactionalMethodStillRunningWhenTheToolAnswersFencesTheKey() throws Exception {
    String order = UUID.randomUUID().toString();
    List<Object> answers = ReviewApps.chargeTwice(APP.app(), "charge_plain", order);
    Thread.sleep(1500); // both abandoned methods have finished
    assertThat(ReviewApps.charges(TABLE, order))
        .as("charge rows; answers %s", answers)
        .isEqualTo(1);
  }

  @Test
  void anEarlierAttemptsLateWorkerDoesNotRunUnderTheNextAttemptsWatch() throws Exception {
    String order = UUID.randomUUID().toString();
    ReviewApps.charges(TABLE, "warm-up");
    List<Object> answers = ReviewApps.chargeTwice(APP.app(), "charge_retried", order);
    Thread.sleep(2500); // the late worker has finished
    assertThat(ReviewApps.charges(TABLE, order))
        .as("charge rows; answers %s", answers)
        .isEqualTo(1);
  }
}
