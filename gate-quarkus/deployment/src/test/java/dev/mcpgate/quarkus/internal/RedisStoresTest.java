package dev.mcpgate.quarkus.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.mcpgate.quarkus.McpGateConfig;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The Redis store's startup checks ({@link RedisStores#create}) on this module's class path, and on
 * one that hides gate-redis: a {@code QuarkusUnitTest} cannot take a dependency away, so the check
 * is tested directly, through the thread's context class loader that {@code RedisStores} reads.
 */
class RedisStoresTest {
  private static final String SECRET = "hunter2-s3cret";

  @Test
  void withoutGateRedisTheStartupStopsNamingTheDependency() {
    ClassLoader app = Thread.currentThread().getContextClassLoader();
    ClassLoader withoutGateRedis =
        new ClassLoader(app) {
          @Override
          protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
            if (name.startsWith("dev.mcpgate.redis.")) {
              throw new ClassNotFoundException(name);
            }
            return super.loadClass(name, resolve);
          }
        };
    Thread.currentThread().setContextClassLoader(withoutGateRedis);
    try {
      assertThatThrownBy(() -> RedisStores.create(redis("redis://127.0.0.1:6379", false)))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("mcpgate.store=redis needs gate-redis on the class path")
          .hasMessageContaining("dev.mcpgate:gate-redis")
          .hasMessageContaining("io.lettuce:lettuce-core " + LettuceNetty.LETTUCE_FOR_NETTY_41);
    } finally {
      Thread.currentThread().setContextClassLoader(app);
    }
  }

  @Test
  void aUrlThatIsNotARedisUriIsNamedWithoutItsPasswordAnywhereInTheFailure() {
    // Lettuce's own message (and its cause's) repeats this URL, password included
    assertThatThrownBy(
            () -> RedisStores.create(redis("redis://app:" + SECRET + "@[::1:6379", false)))
        .hasMessageContaining("mcpgate.redis.url: redis://***@[::1:6379 is not a Redis URI (")
        .satisfies(e -> assertThat(trace(e)).doesNotContain(SECRET));
  }

  @Test
  void twoServersWithoutTheClusterFlagAreNamedWithoutTheirPasswords() {
    String urls = "redis://:" + SECRET + "@127.0.0.1:7101,rediss://u:" + SECRET + "@127.0.0.1:7102";
    assertThatThrownBy(() -> RedisStores.create(redis(urls, false)))
        .hasMessageContaining(
            "mcpgate.redis.url names 2 servers (redis://***@127.0.0.1:7101,"
                + "rediss://***@127.0.0.1:7102)")
        .satisfies(e -> assertThat(trace(e)).doesNotContain(SECRET));
  }

  private static String trace(Throwable e) {
    StringWriter w = new StringWriter();
    e.printStackTrace(new PrintWriter(w));
    return w.toString();
  }

  private static McpGateConfig.Redis redis(String url, boolean cluster) {
    return new McpGateConfig.Redis() {
      @Override
      public Optional<String> url() {
        return Optional.of(url);
      }

      @Override
      public boolean cluster() {
        return cluster;
      }

      @Override
      public Optional<String> keyPrefix() {
        return Optional.of("mcpgate-test:");
      }
    };
  }
}
