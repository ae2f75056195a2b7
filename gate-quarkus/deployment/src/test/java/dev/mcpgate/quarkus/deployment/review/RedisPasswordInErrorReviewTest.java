package dev.mcpgate.quarkus.deployment.review;

import static org.assertj.core.api.Assertions.assertThat;

import io.quarkus.test.QuarkusUnitTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Review: two password-carrying URLs without mcpgate.redis.cluster=true. The startup must stop (it
 * does), but its message repeats mcpgate.redis.url verbatim, passwords included.
 */
class RedisPasswordInErrorReviewTest {

  @RegisterExtension
  static final QuarkusUnitTest APP =
      new QuarkusUnitTest()
          .overrideConfigKey("quarkus.devservices.enabled", "false")
          .overrideConfigKey("mcpgate.store", "redis")
          .overrideConfigKey(
              "mcpgate.redis.url",
              "redis://:hunter2-secret@127.0.0.1:7101,redis://:hunter2-secret@127.0.0.1:7102")
          .overrideConfigKey("mcpgate.tenant.constant", "demo")
          .assertException(
              e ->
                  assertThat(e)
                      .hasStackTraceContaining("mcpgate.redis.cluster=true")
                      .satisfies(
                          x ->
                              assertThat(stackTrace(x))
                                  .as("the startup error does not carry the password")
                                  .doesNotContain("hunter2-secret")));

  static String stackTrace(Throwable t) {
    java.io.StringWriter w = new java.io.StringWriter();
    t.printStackTrace(new java.io.PrintWriter(w));
    return w.toString();
  }

  @Test
  void theStartupFailsWithoutPrintingThePassword() {}
}
