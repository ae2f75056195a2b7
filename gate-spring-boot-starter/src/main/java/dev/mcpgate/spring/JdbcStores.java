package dev.mcpgate.spring;

import dev.mcpgate.core.spi.IdempotencyStore;
import javax.sql.DataSource;

/**
 * The starter's uses of gate-jdbc, loaded only when gate-jdbc is on the class path. A class of its
 * own, not a nested one: javac keeps the map of a switch over an enum in one synthetic class per
 * top-level class, so {@code ClaimsTableException}'s switch here beside {@link StoreFactory}'s
 * switch over {@code mcpgate.store} made every store's startup load gate-jdbc's enum, and an
 * application without gate-jdbc failed with a {@code NoClassDefFoundError}.
 */
final class JdbcStores {
  private JdbcStores() {}

  static dev.mcpgate.core.audit.AuditSink audit(McpGateProperties props, DataSource dataSource) {
    return dev.mcpgate.jdbc.JdbcAuditSink.builder(dataSource)
        .tableName(props.getAudit().getTableName())
        .createSchemaIfMissing(props.isCreateSchemaIfMissing())
        .build();
  }

  /**
   * @throws StartupFailure when the claims table is missing or out of date, with the SQL to run
   *     under its action
   */
  static void verify(IdempotencyStore store) {
    try {
      ((dev.mcpgate.jdbc.JdbcIdempotencyStore) store).verify();
    } catch (dev.mcpgate.jdbc.ClaimsTableException e) {
      String skip =
          "mcpgate.verify-schema=false starts without this check, and the first call finds out.";
      throw switch (e.problem()) {
        case MISSING ->
            new StartupFailure(
                "MCP Gate's claims table " + e.table() + " does not exist.",
                "Create it with:\n\n"
                    + e.statements().strip()
                    + "\n\nor set mcpgate.create-schema-if-missing=true to create it (and the"
                    + " audit table) at startup, or run gate-jdbc's Flyway migrations"
                    + " (docs/stores.md, \"Migrations\"). "
                    + skip,
                e);
        case OUT_OF_DATE ->
            new StartupFailure(
                "MCP Gate's claims table "
                    + e.table()
                    + " is out of date: an older version of MCP Gate created it, and "
                    + String.join("; ", e.differences())
                    + ".",
                "Bring it up to date with:\n\n"
                    + e.statements().strip()
                    + "\n\nmcpgate.create-schema-if-missing=true creates a missing table but"
                    + " never alters one. "
                    + skip,
                e);
      };
    }
  }

  static IdempotencyStore create(McpGateProperties props, DataSource dataSource) {
    return dev.mcpgate.jdbc.JdbcIdempotencyStore.builder(dataSource)
        .tableName(props.getTableName())
        .createSchemaIfMissing(props.isCreateSchemaIfMissing())
        .build();
  }
}
