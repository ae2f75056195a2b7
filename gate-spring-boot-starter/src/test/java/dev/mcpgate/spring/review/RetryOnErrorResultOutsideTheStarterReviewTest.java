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

/**
 * Review V (of e0eadf2a), fixed: each invocation not inside another counts what the handler call's
 * earlier ones kept ({@code TransactionEnds(before)}). The finding: a retry advice of the
 * application's that calls the tool again when it <em>returns</em> an error result (Resilience4j's
 * {@code retryOnResult}, or a hand-written one, like {@link RetryOutsideTheStarterReviewTest}'s but
 * on the answer). The first attempt charges (its transaction commits) and answers "the receipt
 * service is down" as an error result; the retry's attempt finds the order in an unexpected state
 * and answers an error result too. By TransactionEnds' rule, an error result of the method's own
 * after an earlier attempt's transaction committed speaks for the last attempt only and fences the
 * key: so it does with the retry advice inside the starter's ({@code charge_result_retried_inside},
 * one watch). With the same advice outside it ({@code charge_result_retried_outside}), {@code
 * WatchedInvocation.threw} is false after the first attempt (it returned), the second gets a watch
 * of its own that knows nothing of the first's commit, the key is freed and the caller's retry
 * charges again. Needs PostgreSQL at 127.0.0.1:5432 (database test, user postgres).
 */
class RetryOnErrorResultOutsideTheStarterReviewTest {
  static final String TABLE = ReviewApps.chargeTable("mg_retry_on_result");
  static final Map<String, AtomicInteger> ATTEMPTS = new ConcurrentHashMap<>();

  public static class Tools {
    private final JdbcTemplate jdbc;

    public Tools(JdbcTemplate jdbc) {
      this.jdbc = jdbc;
    }

    private CallToolResult attempt(String orderId) {
      int attempt = ATTEMPTS.computeIfAbsent(orderId, k -> new AtomicInteger()).incrementAndGet();
      if (attempt % 2 == 1) {
        jdbc.update("INSERT INTO " + TABLE + " VALUES (?)", orderId); // kept: committed
        return CallToolResult.builder()
            .addTextContent("the receipt service is down, try again")
            .isError(true)
            .build();
      }
      // the retry's attempt finds the order already charged and gives up
      return CallToolResult.builder()
          .addTextContent("order " + orderId + " is in an unexpected state")
          .isError(true)
          .build();
    }

    @McpTool(name = "charge_result_retried_outside", description = "Charge an order")
    @Idempotent
    @Transactional
    public CallToolResult chargeOutside(@McpToolParam(description = "the order") String orderId) {
      return attempt(orderId);
    }

    @McpTool(name = "charge_result_retried_inside", description = "Charge an order")
    @Idempotent
    @Transactional
    public CallToolResult chargeInside(@McpToolParam(description = "the order") String orderId) {
      return attempt(orderId);
    }
  }

  /** Calls the method once more when it answers an error result. */
  static final MethodInterceptor ONCE_MORE_ON_ERROR_RESULT =
      invocation -> {
        Object first = ((ProxyMethodInvocation) invocation).invocableClone().proceed();
        if (first instanceof CallToolResult r && Boolean.TRUE.equals(r.isError())) {
          return ((ProxyMethodInvocation) invocation).invocableClone().proceed();
        }
        return first;
      };

  /**
   * Runs after the starter's post-processor: puts the retry advice outermost for {@code
   * chargeOutside}, and just inside the starter's outer advice (where {@code
   * EnableResilientMethods} puts Spring's) for {@code chargeInside}.
   */
  static class RetryOnResult implements BeanPostProcessor {
    @Override
    public Object postProcessAfterInitialization(Object bean, String beanName) {
      if (bean instanceof Advised advised && bean instanceof Tools) {
        NameMatchMethodPointcut outside = new NameMatchMethodPointcut();
        outside.setMappedName("chargeOutside");
        advised.addAdvisor(0, new DefaultPointcutAdvisor(outside, ONCE_MORE_ON_ERROR_RESULT));
        NameMatchMethodPointcut inside = new NameMatchMethodPointcut();
        inside.setMappedName("chargeInside");
        advised.addAdvisor(2, new DefaultPointcutAdvisor(inside, ONCE_MORE_ON_ERROR_RESULT));
      }
      return bean;
    }
  }

  @EnableAutoConfiguration
  @Import(ReviewApps.OpenSecurity.class)
  public static class Server {
    @Bean
    static BeanDefinitionRegistryPostProcessor registeringRetryOnResult() {
      return registry ->
          registry.registerBeanDefinition(
              "retryOnResult", new RootBeanDefinition(RetryOnResult.class, RetryOnResult::new));
    }

    @Bean
    Tools tools(JdbcTemplate jdbc) {
      return new Tools(jdbc);
    }
  }

  @RegisterExtension
  static final ReviewApps.Running APP =
      new ReviewApps.Running(() -> ReviewApps.postgresServer(Server.class, 5432));

  @ParameterizedTest
  @ValueSource(strings = {"charge_result_retried_inside", "charge_result_retried_outside"})
  void aChargeIsMadeOnceWhereverTheRetryAdviceIs(String tool) throws Exception {
    String order = UUID.randomUUID().toString();
    List<Object> answers = ReviewApps.chargeTwice(APP.app(), tool, order);
    assertThat(ReviewApps.charges(TABLE, order))
        .as("charge rows; answers %s", answers)
        .isEqualTo(1);
  }
}
