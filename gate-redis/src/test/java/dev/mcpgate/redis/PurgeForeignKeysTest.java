package dev.mcpgate.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * purgeExpired walks {@code SCAN MATCH <prefix>*} and runs its delete script on every key found,
 * claim or not. A key under the prefix that is not a claim (an application's, with a prefix such as
 * {@code myapp:}) either stops every purge (a string: WRONGTYPE, so a {@code ClaimPurger} on that
 * store never deletes anything again) or is deleted (a hash with a field {@code e} holding a past
 * number). stores.md says the purge deletes "what has expired" of the store's claims; on DynamoDB
 * the shared-table case is guarded. The purge script now deletes only claims.
 */
class PurgeForeignKeysTest {
  private static String prefix() {
    return "mg_pf_" + Long.toHexString(System.nanoTime()) + ":";
  }

  @Test
  void aStringKeyUnderThePrefixDoesNotStopThePurge() {
    String prefix = prefix();
    try (StatefulRedisConnection<String, String> c = TestRedis.client().connect();
        RedisIdempotencyStore store =
            RedisIdempotencyStore.builder(TestRedis.client()).keyPrefix(prefix).build()) {
      RedisCommands<String, String> redis = c.sync();
      redis.setex(prefix + "session:42", 60, "an application's value");

      assertThat(store.purgeExpired(100)).isZero(); // throws StoreUnavailableException: WRONGTYPE
    }
  }

  @Test
  void anApplicationHashUnderThePrefixIsNotDeleted() {
    String prefix = prefix();
    try (StatefulRedisConnection<String, String> c = TestRedis.client().connect();
        RedisIdempotencyStore store =
            RedisIdempotencyStore.builder(TestRedis.client()).keyPrefix(prefix).build()) {
      RedisCommands<String, String> redis = c.sync();
      String appKey = prefix + "user:7";
      redis.hset(appKey, Map.of("e", "1", "name", "an application's hash"));
      redis.expire(appKey, 60);

      store.purgeExpired(100);

      assertThat(redis.exists(appKey)).as("the application's hash after a purge").isEqualTo(1L);
    }
  }

  @Test
  void aHashWithAClaimsFieldsButAStateOfItsOwnIsNotDeleted() {
    String prefix = prefix();
    try (StatefulRedisConnection<String, String> c = TestRedis.client().connect();
        RedisIdempotencyStore store =
            RedisIdempotencyStore.builder(TestRedis.client()).keyPrefix(prefix).build()) {
      RedisCommands<String, String> redis = c.sync();
      Map<String, String> fields = Map.of("e", "1", "t", "tok", "h", "hash", "a", "1");
      String appKey = prefix + "job:9";
      redis.hset(appKey, fields);
      redis.hset(appKey, "s", "active"); // an application's state, not a claim's
      String claimLike = prefix + "job:10";
      redis.hset(claimLike, fields);
      redis.hset(claimLike, "s", "COMPLETED");
      redis.expire(appKey, 60);
      redis.expire(claimLike, 60);

      assertThat(store.purgeExpired(100)).as("the expired claim-shaped hash is purged").isOne();

      assertThat(redis.exists(appKey)).as("the hash whose state is not a claim's").isEqualTo(1L);
      assertThat(redis.exists(claimLike)).isZero();
    }
  }
}
