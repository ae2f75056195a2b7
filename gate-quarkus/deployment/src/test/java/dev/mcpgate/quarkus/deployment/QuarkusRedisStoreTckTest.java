package dev.mcpgate.quarkus.deployment;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.core.spi.IdempotencyStore;
import dev.mcpgate.redis.RedisIdempotencyStore;
import dev.mcpgate.store.tck.IdempotencyStoreContract;
import io.lettuce.core.LettuceVersion;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * The store TCK for gate-redis on this module's class path, the one a Quarkus 3.27 application has:
 * Lettuce 6.8.1 (pinned) on Netty 4.1 (the Quarkus BOM's), against the real Redis at {@code
 * MCPGATE_TEST_REDIS_URL}, under a key prefix of its own. Backs the claim that the Redis store
 * keeps its contract on Quarkus.
 */
class QuarkusRedisStoreTckTest extends IdempotencyStoreContract {
  private static final String PREFIX = "mcpgate-quarkus-tck-" + UUID.randomUUID() + ":";
  private static RedisClient client;
  private RedisIdempotencyStore redisStore;

  private static synchronized RedisClient client() {
    if (client == null) {
      client = RedisClient.create(RedisURI.create(TestRedisUrl.required(TestRedisUrl.SINGLE)));
    }
    return client;
  }

  @AfterAll
  static synchronized void shutdown() {
    if (client != null) {
      client.shutdown();
      client = null;
    }
  }

  @Override
  protected IdempotencyStore createStore() {
    redisStore = RedisIdempotencyStore.builder(client()).keyPrefix(PREFIX).build();
    return redisStore;
  }

  @Override
  protected void closeStore() {
    if (redisStore != null) {
      redisStore.close();
    }
  }

  @Override
  protected int threadsOnOneKey() {
    return 64;
  }

  @Override
  protected int[] threadsAndKeys() {
    return new int[] {16, 1000};
  }

  @Test
  void theClassPathIsQuarkusNettyWithTheLettucePinnedForIt() {
    assertThat(LettuceVersion.getVersion()).startsWith("6.8.1");
    assertThat(io.netty.util.Version.identify().get("netty-common").artifactVersion())
        .startsWith("4.1.");
  }
}
