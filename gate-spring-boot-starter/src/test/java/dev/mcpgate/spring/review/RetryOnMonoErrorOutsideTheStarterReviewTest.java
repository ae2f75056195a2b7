package dev.mcpgate.spring.review;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.mcp.Idempotent;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.aopalliance.intercept.MethodInterceptor;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.ai.mcp.annotation.McpTool;
import org.springframework.ai.mcp.annotation.McpToolParam;
import org.springframework.aop.ProxyMethodInvocation;
import org.springframework.aop.framework.Advised;
import org.springframework.aop.support.DefaultPointcutAdvisor;
import org.springframework.aop.support.NameMatchMethodPointcut;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.beans.factory.support.BeanDefinitionRegistryPostProcessor;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.annotation.Transactional;
import reactor.core.publisher.Mono;

/**
 * Review V (of e0eadf2a), fixed as {@link RetryOnErrorResultOutsideTheStarterReviewTest} is. The
 * finding: {@link RetryOutsideTheStarterReviewTest} for a tool returning a {@code Mono} on an async
 * server: a reactive retry advice of the application's, outside the starter's, calls the method
 * again when its {@code Mono} fails ({@code Mono.defer(proceed)} with {@code onErrorResume}). The
 * first attempt charges (JDBC's transaction commits as the method returns) and its Mono fails ("the
 * receipt service is down"); the second attempt finds the order in an unexpected state and throws
 * (rolled back). The first attempt did not throw, so {@code WatchedInvocation.threw} is false and
 * the second gets a watch of its own (as a step called from the Mono would), which knows nothing of
 * the first's commit: the failure frees the key and the caller's retry charges again. The call came
 * after the first attempt's Mono had failed, not while it ran. Needs PostgreSQL at 127.0.0.1:5432
 * (database test, user postgres).
 *
 * <p>{@code charge_mono_retried_on_result} is the same with the retry on the Mono's value, an error
 * result of the tool's own: the first attempt's Mono succeeded, and only its end ({@code
 * WatchedInvocation.end} on the Mono's success) lets the second be read as the next attempt rather
 * than as a step of the first, which would leave the first's error result to free the key.
 */
class RetryOnMonoErrorOutsideTheStarterReviewTest {
  static final String TABLE = ReviewApps.chargeTable("mg_retry_on_mono_error");
  static final Map<String, AtomicInteger> ATTEMPTS = new ConcurrentHashMap<>();

  public static class Tools {
    private final JdbcTemplate jdbc;

    public Tools(JdbcTemplate jdbc) {
      this.jdbc = jdbc;
    }

    @McpTool(name = "charge_mono_retried_on_error", description = "Charge an order")
    @Idempotent
    @Transactional
    public Mono<String> charge(@McpToolParam(description = "the order") String orderId) {
      int attempt = ATTEMPTS.computeIfAbsent(orderId, k -> new AtomicInteger()).incrementAndGet();
      if (attempt % 2 == 1) {
        jdbc.update("INSERT INTO " + TABLE + " VALUES (?)", orderId); // committed on return
        return Mono.error(new IllegalStateException("the receipt service is down"));
      }
      throw new IllegalStateException("order " + orderId + " is in an unexpected state");
    }

    @McpTool(name = "charge_mono_retried_on_result", description = "Charge an order")
    @Idempotent
    @Transactional
    public Mono<CallToolResult> chargeOnResult(
        @McpToolParam(description = "the order") String orderId) {
      int attempt = ATTEMPTS.computeIfAbsent(orderId, k -> new AtomicInteger()).incrementAndGet();
      if (attempt % 2 == 1) {
        jdbc.update("INSERT INTO " + TABLE + " VALUES (?)", orderId); // committed on return
        return Mono.just(error("the receipt service is down, try again"));
      }
      return Mono.just(error("order " + orderId + " is in an unexpected state"));
    }

    private static CallToolResult error(String text) {
      return CallToolResult.builder().addTextContent(text).isError(true).build();
    }
  }

  /**
   * A reactive retry advice: calls {@code charge} once more when its Mono fails, {@code
   * chargeOnResult} once more when its Mono's value is an error result.
   */
  static class OnMonoError implements BeanPostProcessor {
    @Override
    public Object postProcessAfterInitialization(Object bean, String beanName) {
      if (bean instanceof Advised advised && bean instanceof Tools) {
        NameMatchMethodPointcut retried = new NameMatchMethodPointcut();
        retried.setMappedName("charge");
        advised.addAdvisor(
            0,
            new DefaultPointcutAdvisor(
                retried,
                (MethodInterceptor)
                    invocation -> {
                      ProxyMethodInvocation first =
                          (ProxyMethodInvocation)
                              ((ProxyMethodInvocation) invocation).invocableClone();
                      ProxyMethodInvocation second =
                          (ProxyMethodInvocation)
                              ((ProxyMethodInvocation) invocation).invocableClone();
                      return Mono.defer(() -> proceed(first))
                          .onErrorResume(
                              IllegalStateException.class, e -> Mono.defer(() -> proceed(second)));
                    }));
        NameMatchMethodPointcut onResult = new NameMatchMethodPointcut();
        onResult.setMappedName("chargeOnResult");
        advised.addAdvisor(
            0,
            new DefaultPointcutAdvisor(
                onResult,
                (MethodInterceptor)
                    invocation -> {
                      ProxyMethodInvocation first =
                          (ProxyMethodInvocation)
                              ((ProxyMethodInvocation) invocation).invocableClone();
                      ProxyMethodInvocation second =
                          (ProxyMethodInvocation)
                              ((ProxyMethodInvocation) invocation).invocableClone();
                      return Mono.defer(() -> proceed(first))
                          .flatMap(
                              r ->
                                  r instanceof CallToolResult c && Boolean.TRUE.equals(c.isError())
                                      ? Mono.defer(() -> proceed(second))
                                      : Mono.just(r));
                    }));
      }
      return bean;
    }

    @SuppressWarnings("unchecked")
    private static Mono<Object> proceed(ProxyMethodInvocation invocation) {
      try {
        return (Mono<Object>) invocation.proceed();
      } catch (Throwable t) {
        return Mono.error(t);
      }
    }
  }

  @EnableAutoConfiguration
  @Import(ReviewApps.OpenSecurity.class)
  public static class Server {
    @Bean
    static BeanDefinitionRegistryPostProcessor registeringOnMonoError() {
      return registry ->
          registry.registerBeanDefinition(
              "onMonoError", new RootBeanDefinition(OnMonoError.class, OnMonoError::new));
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

  @ParameterizedTest
  @ValueSource(strings = {"charge_mono_retried_on_error", "charge_mono_retried_on_result"})
  void aChargeIsNotMadeAgainByTheCallersRetry(String tool) throws Exception {
    String order = UUID.randomUUID().toString();
    List<Object> answers = ReviewApps.chargeTwice(APP.app(), tool, order);
    assertThat(ATTEMPTS.get(order)).as("answers %s", answers).hasValueGreaterThanOrEqualTo(2);
    assertThat(ReviewApps.charges(TABLE, order))
        .as("charge rows; answers %s", answers)
        .isEqualTo(1);
  }
}
