package dev.mcpgate.quarkus.deployment.review;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.mcp.Idempotent;
import io.quarkiverse.mcp.server.Tool;
import io.quarkiverse.mcp.server.ToolArg;
import io.quarkiverse.mcp.server.ToolResponse;
import io.quarkus.test.QuarkusUnitTest;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Review: the application sets mcpgate.redis.url (and a key prefix) but leaves mcpgate.store at its
 * default (auto) while it also has a default data source. The gate silently keeps its claims in
 * PostgreSQL: the Redis settings are ignored without a word. Expected: the startup refuses the
 * contradiction, naming mcpgate.redis.url and mcpgate.store=redis.
 */
class RedisUrlUnderAutoReviewTest {
  static final String PG =
      java.util.Objects.requireNonNullElse(
          System.getenv("MCPGATE_TEST_POSTGRES_URL"),
          "jdbc:postgresql://127.0.0.1:5432/test?user=postgres");
  static final String TABLE = "review_qr_" + UUID.randomUUID().toString().replace("-", "");

  @RegisterExtension
  static final QuarkusUnitTest APP =
      new QuarkusUnitTest()
          .withApplicationRoot(jar -> jar.addClasses(MailTools.class))
          .overrideConfigKey("quarkus.devservices.enabled", "false")
          .overrideConfigKey("quarkus.datasource.db-kind", "postgresql")
          .overrideConfigKey("quarkus.datasource.jdbc.url", PG)
          .overrideConfigKey("mcpgate.table-name", TABLE)
          .overrideConfigKey("mcpgate.create-schema-if-missing", "true")
          .overrideConfigKey("mcpgate.redis.url", "redis://127.0.0.1:6379")
          .overrideConfigKey("mcpgate.redis.key-prefix", "orders-mcp:")
          .overrideConfigKey("mcpgate.tenant.constant", "demo")
          .assertException(
              e ->
                  assertThat(e)
                      .hasStackTraceContaining("mcpgate.redis.url is set")
                      .hasStackTraceContaining("mcpgate.store=redis"));

  @Test
  void theRedisSettingsAreNotSilentlyIgnored() {
    // the startup is refused (above)
  }

  public static class MailTools {
    @Tool(annotations = @Tool.Annotations(idempotentHint = true))
    @Idempotent
    ToolResponse sendMail(
        String to, @ToolArg(name = "idempotency_key", required = false) String idempotencyKey) {
      return ToolResponse.success("sent");
    }
  }
}
