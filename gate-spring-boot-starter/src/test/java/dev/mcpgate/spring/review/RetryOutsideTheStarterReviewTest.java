package dev.mcpgate.spring.review;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.UUID;
import org.aopalliance.aop.Advice;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.aop.framework.Advised;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.beans.factory.support.BeanDefinitionRegistryPostProcessor;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.resilience.annotation.RetryAnnotationBeanPostProcessor;

/**
 * {@link RetriedTransactionalToolReviewTest}'s tools with Spring's retry advice outside the
 * starter's (its post-processor, like the starter's, puts its advice before those already there, so
 * whichever runs last is outermost: here Spring's, registered after the starter's, as a plain
 * post-processor of the application's that runs after it would be; {@code @EnableResilientMethods}
 * registers an ordered one, which runs before it). Each attempt then passes the starter's advice
 * anew; what an earlier attempt's transaction kept must still fence the key (before, each attempt
 * was watched afresh, and the first attempt's committed charge was freed by the second's rollback:
 * the caller's retry charged again). Needs PostgreSQL at 127.0.0.1:5432 (database test, user
 * postgres).
 */
class RetryOutsideTheStarterReviewTest {
  static final String TABLE = RetriedTransactionalToolReviewTest.TABLE;

  /** Spring's retry post-processor, as a plain one (plain ones run in the order registered). */
  static class LateRetry implements BeanPostProcessor, BeanFactoryAware {
    private final RetryAnnotationBeanPostProcessor retry = new RetryAnnotationBeanPostProcessor();

    @Override
    public void setBeanFactory(BeanFactory beanFactory) {
      retry.setBeanFactory(beanFactory);
    }

    @Override
    public Object postProcessAfterInitialization(Object bean, String beanName) {
      return retry.postProcessAfterInitialization(bean, beanName);
    }
  }

  @EnableAutoConfiguration
  @Import(ReviewApps.OpenSecurity.class)
  public static class Server {
    /** Registers {@link LateRetry} after the auto-configuration's beans, so it runs after them. */
    @Bean
    static BeanDefinitionRegistryPostProcessor registeringLateRetry() {
      return registry ->
          registry.registerBeanDefinition(
              "lateRetry", new RootBeanDefinition(LateRetry.class, LateRetry::new));
    }

    @Bean
    RetriedTransactionalToolReviewTest.Tools tools(JdbcTemplate jdbc) {
      return new RetriedTransactionalToolReviewTest.Tools(jdbc);
    }
  }

  @RegisterExtension
  static final ReviewApps.Running APP =
      new ReviewApps.Running(() -> ReviewApps.postgresServer(Server.class, 5432));

  @Test
  void theRetryAdviceIsOutsideTheStarters() {
    Advised tools = (Advised) APP.app().getBean(RetriedTransactionalToolReviewTest.Tools.class);
    Advice outermost = tools.getAdvisors()[0].getAdvice();
    assertThat(outermost.getClass().getName())
        .startsWith(RetryAnnotationBeanPostProcessor.class.getName());
  }

  /**
   * A first attempt's lock failure, then a commit; a first attempt's commit, then a failure; a
   * first attempt's commit, then an error result of the second's own: one charge each.
   */
  @ParameterizedTest
  @ValueSource(
      strings = {"charge_retried", "charge_retry_after_commit", "charge_retry_then_declined"})
  void aChargeIsMadeOnceWhateverItsAttemptsDid(String tool) throws Exception {
    String order = UUID.randomUUID().toString();
    List<Object> answers = ReviewApps.chargeTwice(APP.app(), tool, order);
    assertThat(ReviewApps.charges(TABLE, order))
        .as("charge rows; answers %s", answers)
        .isEqualTo(1);
  }
}
