package dev.mcpgate.quarkus.deployment;

import static org.assertj.core.api.Assertions.assertThat;

import io.quarkus.test.QuarkusUnitTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code mcpgate.store=redis}: two servers in {@code mcpgate.redis.url} without {@code
 * mcpgate.redis.cluster=true} stop the startup, naming both settings.
 */
class RedisTwoUrlsWithoutClusterTest {

  @RegisterExtension
  static final QuarkusUnitTest APP =
      new QuarkusUnitTest()
          .withApplicationRoot(jar -> jar.addClasses(RefundTools.class))
          .overrideConfigKey("quarkus.devservices.enabled", "false")
          .overrideConfigKey("mcpgate.store", "redis")
          .overrideConfigKey("mcpgate.redis.url", "redis://127.0.0.1:1,redis://127.0.0.1:2")
          .overrideConfigKey("mcpgate.tenant.constant", "demo")
          .assertException(
              e ->
                  assertThat(e)
                      .hasStackTraceContaining("mcpgate.redis.url names 2 servers")
                      .hasStackTraceContaining("mcpgate.redis.cluster=true"));

  @Test
  void theStartupFails() {
    // the assertion is the extension's: the application must not start
  }
}
