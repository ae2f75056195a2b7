package dev.mcpgate.quarkus.deployment.review;

import static org.assertj.core.api.Assertions.assertThat;

import io.quarkus.test.QuarkusUnitTest;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * mcpgate.store=redis on a port where no Redis listens: the store and its Lettuce client are made,
 * then the startup check (verify) fails, before the gate is built. The startup stops, and no
 * Lettuce thread is left running ({@link RedisFailedStartupLeakReviewTest} fails later, on a tool).
 */
class RedisFailedBuildLeakTest {

  @RegisterExtension
  static final QuarkusUnitTest APP =
      new QuarkusUnitTest()
          .overrideConfigKey("quarkus.devservices.enabled", "false")
          .overrideConfigKey("mcpgate.store", "redis")
          .overrideConfigKey("mcpgate.redis.url", "redis://127.0.0.1:1")
          .overrideConfigKey("mcpgate.tenant.constant", "demo")
          .assertException(
              e -> {
                assertThat(e).hasStackTraceContaining("could not reach its Redis store at startup");
                List<String> lettuce = RedisFailedStartupLeakReviewTest.lettuceThreads();
                for (int i = 0; i < 50 && !lettuce.isEmpty(); i++) {
                  try {
                    Thread.sleep(100);
                  } catch (InterruptedException x) {
                    Thread.currentThread().interrupt();
                  }
                  lettuce = RedisFailedStartupLeakReviewTest.lettuceThreads();
                }
                assertThat(lettuce)
                    .as("Lettuce threads alive 5 s after the failed startup")
                    .isEmpty();
              });

  @Test
  void theStartupFailsAndLeavesNoLettuceThread() {}
}
