package dev.mcpgate.quarkus.deployment;

import dev.mcpgate.quarkus.internal.GateBeans;
import io.quarkus.test.QuarkusUnitTest;
import jakarta.inject.Inject;
import java.util.UUID;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code mcpgate.store=redis} with {@code mcpgate.redis.cluster=true}: the same server on the real
 * Redis Cluster whose seed nodes {@code MCPGATE_TEST_REDIS_CLUSTER_URL} names (comma-separated).
 */
@ExtendWith(TestRedisUrl.Cluster.class)
class RedisClusterGatedToolsTest extends RedisGatedToolsContract {
  // read here, not through TestRedisUrl: this class is loaded again inside the application
  static final String SEEDS =
      java.util.Objects.requireNonNullElse(
          System.getenv("MCPGATE_TEST_REDIS_CLUSTER_URL"), "redis://unset.invalid:7001");

  @RegisterExtension
  static final QuarkusUnitTest APP =
      new QuarkusUnitTest()
          .withApplicationRoot(jar -> jar.addClasses(RefundTools.class))
          .overrideConfigKey("quarkus.devservices.enabled", "false")
          .overrideConfigKey("quarkus.http.test-port", "0")
          .overrideConfigKey("mcpgate.store", "redis")
          .overrideConfigKey("mcpgate.redis.cluster", "true")
          .overrideConfigKey("mcpgate.redis.url", SEEDS)
          .overrideConfigKey(
              "mcpgate.redis.key-prefix", "mcpgate-quarkus-" + UUID.randomUUID() + ":")
          .overrideConfigKey("mcpgate.tenant.constant", "acme");

  @Inject GateBeans gate;

  @Override
  GateBeans gate() {
    return gate;
  }
}
