package dev.mcpgate.quarkus.deployment.review;

import static org.assertj.core.api.Assertions.assertThat;

import io.quarkus.test.QuarkusUnitTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Review: mcpgate.redis.url carries the Redis password (redis://:secret@host:port, the form the
 * docs' table allows). The startup's INFO line "MCP Gate keeps its claims in Redis at <url>" prints
 * the URL as given, password included. verify-schema=false so the application starts without
 * connecting (the line is logged before the check either way).
 */
class RedisPasswordInStartupLogReviewTest {

  @RegisterExtension
  static final QuarkusUnitTest APP =
      new QuarkusUnitTest()
          .overrideConfigKey("quarkus.devservices.enabled", "false")
          .overrideConfigKey("mcpgate.store", "redis")
          .overrideConfigKey("mcpgate.redis.url", "redis://:hunter2-secret@127.0.0.1:6379")
          .overrideConfigKey("mcpgate.verify-schema", "false")
          .overrideConfigKey("mcpgate.tenant.constant", "demo")
          .setLogRecordPredicate(r -> r.getLoggerName().startsWith("dev.mcpgate"))
          .assertLogRecords(
              records -> {
                assertThat(records)
                    .as("the startup line is there")
                    .anySatisfy(r -> assertThat(r.getMessage()).contains("claims in Redis"));
                assertThat(records)
                    .as("no log line carries the Redis password")
                    .noneSatisfy(r -> assertThat(r.getMessage()).contains("hunter2-secret"));
              });

  @Test
  void theStartupLogDoesNotPrintThePassword() {}
}
