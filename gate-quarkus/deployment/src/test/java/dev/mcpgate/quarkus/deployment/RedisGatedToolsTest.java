package dev.mcpgate.quarkus.deployment;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.quarkus.internal.GateBeans;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import io.quarkus.test.QuarkusUnitTest;
import jakarta.inject.Inject;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.eclipse.microprofile.config.ConfigProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code mcpgate.store=redis}: a real Quarkus MCP server (Streamable HTTP) whose claims are in the
 * real Redis at {@code MCPGATE_TEST_REDIS_URL}, on this module's class path: gate-redis with
 * Lettuce 6.8.1 on the Netty 4.1 that Quarkus pins. What a gated tool answers, how often it ran,
 * and where its claims are.
 */
@ExtendWith(TestRedisUrl.Single.class)
class RedisGatedToolsTest extends RedisGatedToolsContract {
  // read here, not through TestRedisUrl: this class is loaded again inside the application
  static final String URL =
      java.util.Objects.requireNonNullElse(
          System.getenv("MCPGATE_TEST_REDIS_URL"), "redis://unset.invalid:6379");
  static final String PREFIX = "mcpgate-quarkus-" + UUID.randomUUID() + ":";

  @RegisterExtension
  static final QuarkusUnitTest APP =
      new QuarkusUnitTest()
          .withApplicationRoot(jar -> jar.addClasses(RefundTools.class))
          .overrideConfigKey("quarkus.devservices.enabled", "false")
          .overrideConfigKey("quarkus.http.test-port", "0")
          .overrideConfigKey("mcpgate.store", "redis")
          .overrideConfigKey("mcpgate.redis.url", URL)
          .overrideConfigKey("mcpgate.redis.key-prefix", PREFIX)
          .overrideConfigKey("mcpgate.tenant.constant", "acme")
          // the startup reads Lettuce's and Netty's versions through Quarkus' class loader, as the
          // check of Lettuce 7 on Netty 4.1 does
          .setLogRecordPredicate(r -> r.getLoggerName().equals(GateBeans.class.getName()))
          .assertLogRecords(
              records ->
                  assertThat(records)
                      .anySatisfy(
                          r ->
                              assertThat(r.getMessage())
                                  .contains("MCP Gate keeps its claims in Redis at " + URL)
                                  .contains("Lettuce 6.8.1.RELEASE on Netty 4.1.")));

  @Inject GateBeans gate;

  @Override
  GateBeans gate() {
    return gate;
  }

  @Test
  void anotherKeysArgumentsConflict() {
    McpSyncClient client = client();
    String order = fresh();
    String key = fresh();
    refund(client, order, 1000, key);
    CallToolResult other = refund(client, order, 9000, key);

    Map<String, Object> error = error(other);
    assertThat(error)
        .containsEntry("type", "idempotency_key_conflict")
        .containsEntry("executed", "no")
        .containsEntry("retry_with_same_key", false);
    assertThat(RefundTools.runs(order)).isEqualTo(1);
  }

  @Test
  void theClaimsAreInRedisUnderTheKeyPrefix() {
    String order = fresh();
    String key = fresh();
    refund(client(), order, 300, key);

    // the application's prefix: this class is loaded again inside the application, with a new one
    String prefix = ConfigProvider.getConfig().getValue("mcpgate.redis.key-prefix", String.class);
    assertThat(prefix).startsWith("mcpgate-quarkus-");
    RedisClient direct = RedisClient.create(URL);
    try (StatefulRedisConnection<String, String> c = direct.connect()) {
      List<String> keys = c.sync().keys(prefix + "*");
      assertThat(keys).as("claims under %s", prefix).isNotEmpty();
      assertThat(keys).as("this call's claim").anyMatch(k -> k.contains(key));
    } finally {
      direct.shutdown();
    }
  }
}
