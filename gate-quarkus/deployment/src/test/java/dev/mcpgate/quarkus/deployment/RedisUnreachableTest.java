package dev.mcpgate.quarkus.deployment;

import static org.assertj.core.api.Assertions.assertThat;

import io.quarkus.test.QuarkusUnitTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code mcpgate.store=redis}: A Redis that does not answer at startup stops the startup, not the
 * first call.
 */
class RedisUnreachableTest {

  @RegisterExtension
  static final QuarkusUnitTest APP =
      new QuarkusUnitTest()
          .withApplicationRoot(jar -> jar.addClasses(RefundTools.class))
          .overrideConfigKey("quarkus.devservices.enabled", "false")
          .overrideConfigKey("mcpgate.store", "redis")
          .overrideConfigKey("mcpgate.redis.url", "redis://127.0.0.1:1")
          .overrideConfigKey("mcpgate.tenant.constant", "demo")
          .assertException(
              e ->
                  assertThat(e)
                      .hasStackTraceContaining("could not reach its Redis store at startup"));

  @Test
  void theStartupFails() {
    // the assertion is the extension's: the application must not start
  }
}
