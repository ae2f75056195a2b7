package dev.mcpgate.quarkus.deployment.review;

import static org.assertj.core.api.Assertions.assertThat;

import io.quarkus.test.QuarkusUnitTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Review (low): mcpgate.redis.key-prefix set to an empty value (e.g. key-prefix=${APP_PREFIX:} with
 * the variable unset). SmallRye reads an empty value as absent, so the store silently takes the
 * shared default "mcpgate:" (the namespace of every other application on that Redis that did not
 * set one), where gate-redis' own builder refuses an empty prefix. Expected: refused at startup
 * naming mcpgate.redis.key-prefix.
 */
class RedisEmptyKeyPrefixReviewTest {

  @RegisterExtension
  static final QuarkusUnitTest APP =
      new QuarkusUnitTest()
          .overrideConfigKey("quarkus.devservices.enabled", "false")
          .overrideConfigKey("mcpgate.store", "redis")
          .overrideConfigKey("mcpgate.redis.url", "redis://127.0.0.1:6379")
          .overrideConfigKey("mcpgate.redis.key-prefix", "")
          .overrideConfigKey("mcpgate.verify-schema", "false")
          .overrideConfigKey("mcpgate.tenant.constant", "demo")
          .assertException(e -> assertThat(e).hasStackTraceContaining("mcpgate.redis.key-prefix"));

  @Test
  void anEmptyPrefixIsRefused() {}
}
