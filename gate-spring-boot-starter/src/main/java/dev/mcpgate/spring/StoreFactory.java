package dev.mcpgate.spring;

import dev.mcpgate.core.memory.InMemoryIdempotencyStore;
import dev.mcpgate.core.spi.IdempotencyStore;
import javax.sql.DataSource;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.util.ClassUtils;

/**
 * Makes the store that {@code mcpgate.store} asks for from the application's own beans: its
 * DataSource, or its DynamoDbClient, or memory when asked for by name. A JDBC, DynamoDB or Redis
 * store is verified at startup ({@link #verify}) unless {@code mcpgate.verify-schema=false}.
 */
final class StoreFactory {
  private static final String JDBC_STORE = "dev.mcpgate.jdbc.JdbcIdempotencyStore";
  private static final String DYNAMODB_STORE = "dev.mcpgate.dynamodb.DynamoDbIdempotencyStore";
  private static final String DYNAMODB_CLIENT =
      "software.amazon.awssdk.services.dynamodb.DynamoDbClient";
  private static final String REDIS_STORE = "dev.mcpgate.redis.RedisIdempotencyStore";

  private StoreFactory() {}

  /**
   * @return true when the store is gate-jdbc's (whose expired rows need purging)
   */
  static boolean isJdbc(IdempotencyStore store) {
    return store.getClass().getName().equals(JDBC_STORE);
  }

  static IdempotencyStore create(McpGateProperties props, ListableBeanFactory beans) {
    ClassLoader loader = StoreFactory.class.getClassLoader();
    boolean jdbc =
        ClassUtils.isPresent(JDBC_STORE, loader)
            && beans.getBeanNamesForType(DataSource.class).length > 0;
    boolean dynamo =
        ClassUtils.isPresent(DYNAMODB_STORE, loader)
            && ClassUtils.isPresent(DYNAMODB_CLIENT, loader)
            && beans.getBeanNamesForType(ClassUtils.resolveClassName(DYNAMODB_CLIENT, loader))
                    .length
                > 0;
    boolean redisStore = ClassUtils.isPresent(REDIS_STORE, loader);
    boolean redis = redisStore && RedisStores.configured(props, beans);
    return switch (props.getStore()) {
      case MEMORY -> InMemoryIdempotencyStore.create();
      case REDIS -> {
        if (!redis) {
          throw new IllegalStateException(
              "mcpgate.store=redis needs "
                  + (redisStore
                      ? "a Lettuce RedisClient or RedisClusterClient bean, or mcpgate.redis.url"
                          + " (redis://host:6379; with mcpgate.redis.cluster=true, seed nodes,"
                          + " comma-separated)"
                      : "gate-redis on the class path"));
        }
        yield RedisStores.create(props, beans);
      }
      case JDBC -> {
        if (!jdbc) {
          throw new IllegalStateException(
              "mcpgate.store=jdbc needs gate-jdbc on the class path"
                  + " and a DataSource bean; "
                  + (ClassUtils.isPresent(JDBC_STORE, loader)
                      ? "there is no DataSource bean"
                      : "gate-jdbc is missing"));
        }
        yield JdbcStores.create(props, beans.getBean(DataSource.class));
      }
      case DYNAMODB -> {
        if (!dynamo) {
          throw new IllegalStateException(
              "mcpgate.store=dynamodb needs gate-dynamodb on the"
                  + " class path and a DynamoDbClient bean");
        }
        yield DynamoDbStores.create(props, beans);
      }
      case AUTO -> {
        if (jdbc) {
          yield JdbcStores.create(props, beans.getBean(DataSource.class));
        }
        if (dynamo) {
          yield DynamoDbStores.create(props, beans);
        }
        if (redis) {
          yield RedisStores.create(props, beans);
        }
        throw new IllegalStateException(
            "MCP Gate found no store: add gate-jdbc and a DataSource (spring.datasource.*), or"
                + " gate-dynamodb and a DynamoDbClient bean, or gate-redis and mcpgate.redis.url"
                + " (or a Lettuce client bean), or declare an IdempotencyStore bean; for a test or"
                + " a demo, set mcpgate.store=memory");
      }
    };
  }

  /**
   * Connects a JDBC store now and checks its claims table (created first with {@code
   * mcpgate.create-schema-if-missing=true}), so that a missing table or an unreachable database
   * stops the startup instead of the first call; a DynamoDB store's table, keys and renewals
   * ({@code DynamoDbIdempotencyStore.verify()}), and a Redis store's nodes, likewise.
   *
   * @throws IllegalStateException naming the table, the DDL that creates it, and the properties
   */
  static void verify(IdempotencyStore store, McpGateProperties props) {
    if (!props.isVerifySchema()) {
      return;
    }
    if (store.getClass().getName().equals(REDIS_STORE)) {
      try {
        RedisStores.verify(store);
      } catch (dev.mcpgate.core.StoreUnavailableException e) {
        throw new IllegalStateException(
            "MCP Gate could not reach its Redis store at startup: "
                + e.getMessage()
                + "\n(mcpgate.verify-schema=false starts without this check, and the first call"
                + " finds out)",
            e);
      }
      return;
    }
    if (store.getClass().getName().equals(DYNAMODB_STORE)) {
      try {
        DynamoDbStores.verify(store);
      } catch (dev.mcpgate.core.StoreUnavailableException e) {
        throw new IllegalStateException(
            "MCP Gate could not use its DynamoDB store at startup: "
                + e.getMessage()
                + skipHint(props),
            e);
      }
      return;
    }
    if (!isJdbc(store)) {
      return;
    }
    try {
      JdbcStores.verify(store);
    } catch (dev.mcpgate.core.StoreUnavailableException e) {
      throw new IllegalStateException(
          "MCP Gate could not use its JDBC store at startup: " + e.getMessage() + skipHint(props),
          e);
    }
  }

  /**
   * What to set instead, after a failed check: creating the table only when it is not created
   * already (on, it created any missing table before the check ran).
   */
  private static String skipHint(McpGateProperties props) {
    return "\n("
        + (props.isCreateSchemaIfMissing()
            ? ""
            : "mcpgate.create-schema-if-missing=true creates a missing table; ")
        + "mcpgate.verify-schema=false starts without this check, and the first call finds out)";
  }

  /**
   * @return a table sink for the audit trail on the application's DataSource
   */
  static dev.mcpgate.core.audit.AuditSink auditSink(
      McpGateProperties props, ListableBeanFactory beans) {
    if (beans.getBeanNamesForType(DataSource.class).length == 0) {
      throw new IllegalStateException(
          "mcpgate.audit.enabled=true needs a DataSource bean for"
              + " the audit table, or an AuditSink bean of your own");
    }
    return JdbcStores.audit(props, beans.getBean(DataSource.class));
  }

  /** Loaded only when gate-dynamodb and the AWS SDK are on the class path. */
  private static final class DynamoDbStores {
    static IdempotencyStore create(McpGateProperties props, ListableBeanFactory beans) {
      return dev.mcpgate.dynamodb.DynamoDbIdempotencyStore.builder(
              beans.getBean(software.amazon.awssdk.services.dynamodb.DynamoDbClient.class))
          .tableName(props.getTableName())
          .createSchemaIfMissing(props.isCreateSchemaIfMissing())
          .build();
    }

    static void verify(IdempotencyStore store) {
      ((dev.mcpgate.dynamodb.DynamoDbIdempotencyStore) store).verify();
    }
  }

  /** Loaded only when gate-redis (and Lettuce) are on the class path. */
  private static final class RedisStores {
    static boolean configured(McpGateProperties props, ListableBeanFactory beans) {
      String url = props.getRedis().getUrl();
      return (url != null && !url.isBlank())
          || beans.getBeanNamesForType(io.lettuce.core.RedisClient.class).length > 0
          || beans.getBeanNamesForType(io.lettuce.core.cluster.RedisClusterClient.class).length > 0;
    }

    static IdempotencyStore create(McpGateProperties props, ListableBeanFactory beans) {
      McpGateProperties.Redis redis = props.getRedis();
      dev.mcpgate.redis.RedisIdempotencyStore.Builder b;
      String url = redis.getUrl();
      if (url != null && !url.isBlank()) {
        java.util.List<io.lettuce.core.RedisURI> uris = new java.util.ArrayList<>();
        for (String one : url.split(",")) {
          if (!one.isBlank()) {
            uris.add(uri(one.strip()));
          }
        }
        if (!redis.isCluster() && uris.size() != 1) {
          throw new IllegalArgumentException(
              "mcpgate.redis.url names "
                  + uris.size()
                  + " servers ("
                  + dev.mcpgate.redis.RedisUrls.withoutPassword(url)
                  + "); name one, or set mcpgate.redis.cluster=true for a Redis Cluster's seeds");
        }
        b =
            redis.isCluster()
                ? dev.mcpgate.redis.RedisIdempotencyStore.clusterBuilder(uris)
                : dev.mcpgate.redis.RedisIdempotencyStore.builder(uris.get(0));
      } else if (beans.getBeanNamesForType(io.lettuce.core.cluster.RedisClusterClient.class).length
          > 0) {
        b =
            dev.mcpgate.redis.RedisIdempotencyStore.builder(
                beans.getBean(io.lettuce.core.cluster.RedisClusterClient.class));
      } else {
        b =
            dev.mcpgate.redis.RedisIdempotencyStore.builder(
                beans.getBean(io.lettuce.core.RedisClient.class));
      }
      if (redis.getKeyPrefix() != null) {
        b.keyPrefix(redis.getKeyPrefix());
      }
      return b.build();
    }

    private static io.lettuce.core.RedisURI uri(String text) {
      try {
        return io.lettuce.core.RedisURI.create(text);
      } catch (IllegalArgumentException e) {
        // not Lettuce's exception as the cause: its message, and its cause's, repeat the password
        throw new IllegalArgumentException(
            "mcpgate.redis.url: "
                + dev.mcpgate.redis.RedisUrls.withoutPassword(text)
                + " is not a Redis URI ("
                + dev.mcpgate.redis.RedisUrls.withoutPassword(String.valueOf(e.getMessage()))
                + ")");
      }
    }

    static void verify(IdempotencyStore store) {
      ((dev.mcpgate.redis.RedisIdempotencyStore) store).verify();
    }
  }
}
