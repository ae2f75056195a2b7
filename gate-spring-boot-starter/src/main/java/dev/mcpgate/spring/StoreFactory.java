package dev.mcpgate.spring;

import dev.mcpgate.core.memory.InMemoryIdempotencyStore;
import dev.mcpgate.core.spi.IdempotencyStore;
import javax.sql.DataSource;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.util.ClassUtils;

/**
 * Makes the store that {@code mcpgate.store} asks for from the application's own beans: its
 * DataSource, or its DynamoDbClient, or memory when asked for by name. A JDBC store is verified at
 * startup ({@link #verify}) unless {@code mcpgate.verify-schema=false}.
 */
final class StoreFactory {
  private static final String JDBC_STORE = "dev.mcpgate.jdbc.JdbcIdempotencyStore";
  private static final String DYNAMODB_STORE = "dev.mcpgate.dynamodb.DynamoDbIdempotencyStore";
  private static final String DYNAMODB_CLIENT =
      "software.amazon.awssdk.services.dynamodb.DynamoDbClient";

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
    return switch (props.getStore()) {
      case MEMORY -> InMemoryIdempotencyStore.create();
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
        throw new IllegalStateException(
            "MCP Gate found no store: add gate-jdbc and a DataSource"
                + " (spring.datasource.*), or gate-dynamodb and a DynamoDbClient bean, or declare"
                + " an IdempotencyStore bean; for a test or a demo, set mcpgate.store=memory");
      }
    };
  }

  /**
   * Connects a JDBC store now and checks its claims table (created first with {@code
   * mcpgate.create-schema-if-missing=true}), so that a missing table or an unreachable database
   * stops the startup instead of the first call.
   *
   * @throws IllegalStateException naming the table, the DDL that creates it, and the properties
   */
  static void verify(IdempotencyStore store, McpGateProperties props) {
    if (!props.isVerifySchema() || !isJdbc(store)) {
      return;
    }
    try {
      JdbcStores.verify(store);
    } catch (dev.mcpgate.core.StoreUnavailableException e) {
      throw new IllegalStateException(
          "MCP Gate could not use its JDBC store at startup: "
              + e.getMessage()
              + "\n(mcpgate.create-schema-if-missing=true creates the table;"
              + " mcpgate.verify-schema=false starts without this check, and the first call finds"
              + " out)",
          e);
    }
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

  /** Loaded only when gate-jdbc is on the class path. */
  private static final class JdbcStores {
    static dev.mcpgate.core.audit.AuditSink audit(McpGateProperties props, DataSource dataSource) {
      return dev.mcpgate.jdbc.JdbcAuditSink.builder(dataSource)
          .tableName(props.getAudit().getTableName())
          .createSchemaIfMissing(props.isCreateSchemaIfMissing())
          .build();
    }

    static void verify(IdempotencyStore store) {
      ((dev.mcpgate.jdbc.JdbcIdempotencyStore) store).verify();
    }

    static IdempotencyStore create(McpGateProperties props, DataSource dataSource) {
      return dev.mcpgate.jdbc.JdbcIdempotencyStore.builder(dataSource)
          .tableName(props.getTableName())
          .createSchemaIfMissing(props.isCreateSchemaIfMissing())
          .build();
    }
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
  }
}
