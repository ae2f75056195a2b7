package dev.mcpgate.spring.review;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.mcp.Idempotent;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
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
import org.springframework.transaction.interceptor.TransactionAspectSupport;

/**
 * Review AA's remark on {@code WatchedInvocation.running}: a retry advice inside the starter's (its
 * attempts copies made there, which find the handler's watch as the latest attached) around a time
 * limiter that runs each attempt on a thread of its own. The first attempt charges and is still
 * running (its transaction open) when the limiter gives up and the retry begins the second, on
 * another thread; the second finds the order in an unexpected state, rolls back and answers an
 * error result of its own, after the first committed. Read as "the same method running" (a flag any
 * thread set), the second attempt was taken for the method calling itself: not counted, its
 * transaction not registered, so the first one's commit read as the last attempt's and the error
 * result freed the key (2 rows). The flag is now the thread an attempt runs on. Needs PostgreSQL at
 * 127.0.0.1:5432 (database test, user postgres).
 */
class RetryInsideAroundTimeLimiterReviewTest {
  static final String TABLE = ReviewApps.chargeTable("mg_retry_inside_limiter");
  static final Map<String, AtomicInteger> ATTEMPTS = new ConcurrentHashMap<>();

  @Retention(RetentionPolicy.RUNTIME)
  @Target(ElementType.METHOD)
  @interface Limited {}

  public static class Tools {
    private final JdbcTemplate jdbc;

    public Tools(JdbcTemplate jdbc) {
      this.jdbc = jdbc;
    }

    @McpTool(name = "charge_retried_inside", description = "Charge an order")
    @Idempotent
    @Limited
    @Transactional
    public CallToolResult charge(@McpToolParam(description = "the order") String orderId)
        throws InterruptedException {
      if (odd(orderId)) {
        jdbc.update("INSERT INTO " + TABLE + " VALUES (?)", orderId);
        Thread.sleep(900); // committed after the limiter gave up
        return CallToolResult.builder().addTextContent("charged " + orderId).build();
      }
      Thread.sleep(1000); // meanwhile the first attempt commits
      TransactionAspectSupport.currentTransactionStatus().setRollbackOnly();
      return CallToolResult.builder()
          .addTextContent("order " + orderId + " is in an unexpected state")
          .isError(true)
          .build();
    }
  }

  /** Counts an attempt of the order: true for the first of each pair. */
  static boolean odd(String orderId) {
    return ATTEMPTS.computeIfAbsent(orderId, k -> new AtomicInteger()).incrementAndGet() % 2 == 1;
  }

  /**
   * Runs the rest on a thread of its own; gives up on the first attempt of each pair after 300 ms
   * (throwing), waits for the second.
   */
  static final MethodInterceptor TIME_LIMITER =
      invocation -> {
        String order = (String) invocation.getArguments()[0];
        boolean first = ATTEMPTS.getOrDefault(order, new AtomicInteger()).get() % 2 == 0;
        CompletableFuture<Object> run = new CompletableFuture<>();
        new Thread(
                () -> {
                  try {
                    run.complete(invocation.proceed());
                  } catch (Throwable t) {
                    run.completeExceptionally(t);
                  }
                })
            .start();
        try {
          return run.get(first ? 300 : 5000, TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
          throw new IllegalStateException("did not finish in time");
        } catch (ExecutionException e) {
          throw e.getCause();
        }
      };

  /** Retries once on IllegalStateException, each attempt a copy (as Spring Retry does). */
  static final MethodInterceptor RETRY =
      invocation -> {
        try {
          return ((ProxyMethodInvocation) invocation).invocableClone().proceed();
        } catch (IllegalStateException e) {
          return ((ProxyMethodInvocation) invocation).invocableClone().proceed();
        }
      };

  /**
   * The retry just inside the starter's outer advice, the limiter inside it, both
   * outside @Transactional's.
   */
  static class Advices implements BeanPostProcessor {
    @Override
    public Object postProcessAfterInitialization(Object bean, String beanName) {
      if (bean instanceof Advised advised && bean instanceof Tools) {
        advised.addAdvisor(
            1,
            new DefaultPointcutAdvisor(
                AnnotationMatchingPointcut.forMethodAnnotation(Limited.class), RETRY));
        advised.addAdvisor(
            2,
            new DefaultPointcutAdvisor(
                AnnotationMatchingPointcut.forMethodAnnotation(Limited.class), TIME_LIMITER));
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
              "retryAroundLimiter", new RootBeanDefinition(Advices.class, Advices::new));
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
  void aSecondAttemptOnAnotherThreadIsCountedAsAnAttempt() throws Exception {
    String order = UUID.randomUUID().toString();
    List<Object> answers = ReviewApps.chargeTwice(APP.app(), "charge_retried_inside", order);
    Thread.sleep(1500); // every attempt has ended
    assertThat(ReviewApps.charges(TABLE, order))
        .as("charge rows; answers %s", answers)
        .isEqualTo(1);
  }
}
