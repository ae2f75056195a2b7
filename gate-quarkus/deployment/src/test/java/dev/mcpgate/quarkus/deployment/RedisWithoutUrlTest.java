package dev.mcpgate.quarkus.deployment;

import static org.assertj.core.api.Assertions.assertThat;

import io.quarkus.test.QuarkusUnitTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@code mcpgate.store=redis}: No {@code mcpgate.redis.url}: the startup stops naming it. */
class RedisWithoutUrlTest {

  @RegisterExtension
  static final QuarkusUnitTest APP =
      new QuarkusUnitTest()
          .withApplicationRoot(jar -> jar.addClasses(RefundTools.class))
          .overrideConfigKey("quarkus.devservices.enabled", "false")
          .overrideConfigKey("mcpgate.store", "redis")
          .overrideConfigKey("mcpgate.tenant.constant", "demo")
          .assertException(
              e ->
                  assertThat(e)
                      .hasStackTraceContaining("mcpgate.store=redis needs mcpgate.redis.url"));

  @Test
  void theStartupFails() {
    // the assertion is the extension's: the application must not start
  }
}
