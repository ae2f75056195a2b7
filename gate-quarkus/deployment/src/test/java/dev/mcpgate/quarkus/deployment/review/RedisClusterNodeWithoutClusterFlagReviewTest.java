package dev.mcpgate.quarkus.deployment.review;

import static org.assertj.core.api.Assertions.assertThat;

import io.quarkus.test.QuarkusUnitTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Review: mcpgate.redis.url names ONE node of a Redis Cluster and mcpgate.redis.cluster is left
 * false. The startup check (verify: PING, CONFIG GET) passes on that node, so the application
 * starts on a single-node client and the single-node key layout (no hash tag): claims whose key
 * hashes to another node's slots fail with MOVED, the others are stored under keys that a replica
 * configured with mcpgate.redis.cluster=true (hash-tagged layout) never reads, so the same intent
 * retried on such a replica is not found and runs again. Expected: the startup refuses a cluster
 * node without mcpgate.redis.cluster=true (redis_mode/cluster_enabled say so), as it refuses two
 * URLs without it. Needs MCPGATE_TEST_REDIS_CLUSTER_URL (first seed used) or a cluster on 7201.
 */
class RedisClusterNodeWithoutClusterFlagReviewTest {
  static final String SEED =
      java.util.Objects.requireNonNullElse(
              System.getenv("MCPGATE_TEST_REDIS_CLUSTER_URL"), "redis://127.0.0.1:7201")
          .split(",")[0]
          .strip();

  @RegisterExtension
  static final QuarkusUnitTest APP =
      new QuarkusUnitTest()
          .overrideConfigKey("quarkus.devservices.enabled", "false")
          .overrideConfigKey("mcpgate.store", "redis")
          .overrideConfigKey("mcpgate.redis.url", SEED)
          .overrideConfigKey("mcpgate.tenant.constant", "demo")
          .assertException(e -> assertThat(e).hasStackTraceContaining("mcpgate.redis.cluster"));

  @Test
  void theStartupRefusesAClusterNodeWithoutTheClusterFlag() {}
}
