package dev.mcpgate.quarkus.internal;

import dev.mcpgate.core.StoreUnavailableException;
import dev.mcpgate.core.spi.IdempotencyStore;
import dev.mcpgate.quarkus.McpGateConfig;
import java.lang.reflect.InvocationTargetException;
import java.util.ArrayList;
import java.util.List;
import org.eclipse.microprofile.config.ConfigProvider;
import org.jboss.logging.Logger;

/**
 * The Redis store ({@code mcpgate.store=redis}), reached by name through the application's class
 * loader: gate-redis is the application's dependency, not the extension's, and Quarkus may load it
 * in a class loader the extension's classes cannot see (a module of the same Maven build is
 * reloadable in tests and dev mode), so no class of the extension names its types.
 */
final class RedisStores {
  private static final Logger LOG = Logger.getLogger(GateBeans.class); // the gate's startup lines
  private static final String STORE = "dev.mcpgate.redis.RedisIdempotencyStore";
  private static final String URLS = "dev.mcpgate.redis.RedisUrls";
  private static final String LETTUCE_CLIENT = "io.lettuce.core.RedisClient";
  private static final String URI = "io.lettuce.core.RedisURI";

  private RedisStores() {}

  /**
   * The store that {@code mcpgate.redis.*} names, checked first: gate-redis is there, the URL is
   * set, and the Lettuce on the class path runs on its Netty. The store has made its own Lettuce
   * client, which {@link #close} closes.
   *
   * @throws IllegalStateException or IllegalArgumentException naming what is wrong, and the URL
   *     without its password
   */
  static IdempotencyStore create(McpGateConfig.Redis redis) {
    ClassLoader loader = loader();
    if (!present(STORE, loader) || !present(LETTUCE_CLIENT, loader)) {
      throw new IllegalStateException(
          "mcpgate.store=redis needs gate-redis on the class path (dev.mcpgate:gate-redis, with"
              + " io.lettuce:lettuce-core "
              + LettuceNetty.LETTUCE_FOR_NETTY_41
              + " on Quarkus; docs/quarkus.md, \"The Redis store\")");
    }
    if (redis.keyPrefix().isEmpty()
        && ConfigProvider.getConfig().getConfigValue("mcpgate.redis.key-prefix").getRawValue()
            != null) {
      // an empty value (key-prefix=${APP_PREFIX:} with the variable unset) reads as absent, which
      // would be the shared default prefix of every application on that Redis
      throw new IllegalStateException(
          "mcpgate.redis.key-prefix is set but empty: name this application's prefix (such as"
              + " orders-mcp:), or remove the property to use the default, mcpgate:");
    }
    if (redis.url().isEmpty() || redis.url().get().isBlank()) {
      throw new IllegalStateException(
          "mcpgate.store=redis needs mcpgate.redis.url (redis://host:6379; with"
              + " mcpgate.redis.cluster=true, seed nodes, comma-separated)");
    }
    LettuceNetty.problem(loader)
        .ifPresent(
            problem -> {
              throw new IllegalStateException(problem);
            });
    String url = redis.url().get();
    IdempotencyStore store = build(redis, url, loader);
    LOG.info(
        "MCP Gate keeps its claims in Redis at "
            + (redis.cluster() ? "the cluster seeded by " : "")
            + withoutPassword(url)
            + " under the key prefix "
            + redis.keyPrefix().orElse("mcpgate:")
            + " (mcpgate.store=redis; "
            + LettuceNetty.describe(loader)
            + ")");
    return store;
  }

  private static IdempotencyStore build(McpGateConfig.Redis redis, String url, ClassLoader loader) {
    try {
      Class<?> uriType = Class.forName(URI, true, loader);
      List<Object> uris = new ArrayList<>();
      for (String one : url.split(",")) {
        if (!one.isBlank()) {
          uris.add(uri(uriType, one.strip()));
        }
      }
      if (!redis.cluster() && uris.size() != 1) {
        throw new IllegalArgumentException(
            "mcpgate.redis.url names "
                + uris.size()
                + " servers ("
                + withoutPassword(url)
                + "); name one, or set mcpgate.redis.cluster=true for a Redis Cluster's seeds");
      }
      Class<?> storeType = Class.forName(STORE, true, loader);
      Object builder =
          redis.cluster()
              ? storeType.getMethod("clusterBuilder", Iterable.class).invoke(null, uris)
              : storeType.getMethod("builder", uriType).invoke(null, uris.get(0));
      if (redis.keyPrefix().isPresent()) {
        builder
            .getClass()
            .getMethod("keyPrefix", String.class)
            .invoke(builder, redis.keyPrefix().get());
      }
      return (IdempotencyStore) builder.getClass().getMethod("build").invoke(builder);
    } catch (InvocationTargetException e) {
      throw unchecked(e);
    } catch (ReflectiveOperationException e) {
      throw misfit(e);
    }
  }

  private static Object uri(Class<?> uriType, String text) throws ReflectiveOperationException {
    try {
      return uriType.getMethod("create", String.class).invoke(null, text);
    } catch (InvocationTargetException e) {
      if (e.getCause() instanceof IllegalArgumentException bad) {
        // not Lettuce's exception as the cause: its message, and its cause's, repeat the password
        throw new IllegalArgumentException(
            "mcpgate.redis.url: "
                + withoutPassword(text)
                + " is not a Redis URI ("
                + withoutPassword(String.valueOf(bad.getMessage()))
                + ")");
      }
      throw unchecked(e);
    }
  }

  /**
   * @return the URL(s) with any user information (a password) replaced: gate-redis' {@code
   *     RedisUrls.withoutPassword}, for logs and messages
   */
  static String withoutPassword(String urls) {
    try {
      return (String)
          Class.forName(URLS, true, loader())
              .getMethod("withoutPassword", String.class)
              .invoke(null, urls);
    } catch (InvocationTargetException e) {
      throw unchecked(e);
    } catch (ReflectiveOperationException e) {
      throw misfit(e);
    }
  }

  /**
   * @return true when the store is gate-redis'
   */
  static boolean isRedis(IdempotencyStore store) {
    return store.getClass().getName().equals(STORE);
  }

  /**
   * Connects now and checks the server (gate-redis' {@code verify}).
   *
   * @throws IllegalStateException naming why Redis cannot be used, and what helps
   */
  static void verify(IdempotencyStore store) {
    try {
      store.getClass().getMethod("verify").invoke(store);
    } catch (InvocationTargetException e) {
      if (e.getCause() instanceof LinkageError linkage) {
        throw new IllegalStateException(
            "MCP Gate's Redis store cannot run on this class path ("
                + linkage
                + "): on Quarkus' Netty 4.1, pin io.lettuce:lettuce-core "
                + LettuceNetty.LETTUCE_FOR_NETTY_41
                + " (docs/quarkus.md, \"The Redis store\")",
            linkage);
      }
      if (e.getCause() instanceof StoreUnavailableException unavailable) {
        throw new IllegalStateException(
            "MCP Gate could not reach its Redis store at startup: "
                + unavailable.getMessage()
                + "\n(mcpgate.verify-schema=false starts without this check, and the first call"
                + " finds out)",
            unavailable);
      }
      throw unchecked(e);
    } catch (ReflectiveOperationException e) {
      throw misfit(e);
    }
  }

  /** Closes the store's connections and the Lettuce client it made. */
  static void close(IdempotencyStore store) {
    try {
      ((AutoCloseable) store).close();
    } catch (Exception e) {
      LOG.warn("MCP Gate could not close its Redis store: " + e, e);
    }
  }

  private static ClassLoader loader() {
    ClassLoader context = Thread.currentThread().getContextClassLoader();
    return context != null ? context : RedisStores.class.getClassLoader();
  }

  private static boolean present(String className, ClassLoader loader) {
    try {
      Class.forName(className, false, loader);
      return true;
    } catch (ClassNotFoundException | LinkageError e) {
      return false;
    }
  }

  private static IllegalStateException misfit(ReflectiveOperationException e) {
    return new IllegalStateException(
        "mcpgate.store=redis: this gate-redis does not fit this gate-quarkus: " + e, e);
  }

  private static RuntimeException unchecked(InvocationTargetException e) {
    Throwable cause = e.getCause();
    if (cause instanceof RuntimeException r) {
      return r;
    }
    if (cause instanceof Error error) {
      throw error;
    }
    return new IllegalStateException(String.valueOf(cause), cause);
  }
}
