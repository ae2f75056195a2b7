package dev.mcpgate.jdbc;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.sql.DatabaseMetaData;
import java.sql.SQLException;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/** The databases the JDBC store speaks to, each with its own claim statement and DDL. */
public enum JdbcDialect {
  /**
   * PostgreSQL 12 or later: one statement that inserts the key when it is free ({@code INSERT .. ON
   * CONFLICT DO NOTHING}) and reads the existing row back otherwise; a takeover is an UPDATE
   * conditional on the token read.
   */
  POSTGRESQL("postgresql"),
  /**
   * MariaDB 10.3 or later: a consistent SELECT, then a plain INSERT (a duplicate key is a lost race
   * that goes round), or an UPDATE conditional on the token read for a takeover; in single-commit
   * mode one {@code CALL} of the table's claim procedure does the same in one round trip.
   */
  MARIADB("mariadb"),
  /** MySQL 8: the same statements and procedure as MariaDB. */
  MYSQL("mariadb"),
  /** H2 2.x: an optimistic compare-and-set on the lease token, retried on a lost race. */
  H2("h2");

  private final String schemaResource;
  private final String auditResource;
  private final String migrationFolder;

  JdbcDialect(String schemaName) {
    this.schemaResource = "schema-" + schemaName + ".sql";
    this.auditResource = "audit-" + schemaName + ".sql";
    this.migrationFolder = schemaName;
  }

  /**
   * Where this dialect's versioned migrations are on the class path, for Flyway's {@code
   * locations}: they create the claims table {@code mcpgate_claims} and the audit table {@code
   * mcpgate_audit} as {@link #ddl} and {@link #auditDdl} do (with the procedures on MariaDB and
   * MySQL); a later version that changes the tables adds a migration there. Run them with a history
   * table of their own (see docs/stores.md). A table made by an older version's {@code
   * createSchemaIfMissing} is left as it is: {@link JdbcIdempotencyStore#verify()} names what to
   * run on it.
   *
   * @return {@code classpath:db/migration/mcpgate/postgresql}, {@code .../mariadb} (MariaDB and
   *     MySQL) or {@code .../h2}
   */
  public String migrationLocation() {
    return "classpath:db/migration/mcpgate/" + migrationFolder;
  }

  /**
   * @param metaData a connection's metadata
   * @return the dialect of that database
   * @throws SQLException if the metadata cannot be read
   * @throws IllegalArgumentException naming the product, if it is not supported
   */
  public static JdbcDialect detect(DatabaseMetaData metaData) throws SQLException {
    String product = metaData.getDatabaseProductName();
    String lower = product == null ? "" : product.toLowerCase(Locale.ROOT);
    if (lower.contains("postgres")) {
      return POSTGRESQL;
    }
    if (lower.contains("mariadb")) {
      return MARIADB;
    }
    if (lower.contains("mysql")) {
      String version = metaData.getDatabaseProductVersion();
      return version != null && version.toLowerCase(Locale.ROOT).contains("mariadb")
          ? MARIADB
          : MYSQL;
    }
    if (lower.equals("h2")) {
      return H2;
    }
    throw new IllegalArgumentException(
        "database product \""
            + product
            + "\" is not supported; MCP Gate's JDBC store supports PostgreSQL, MariaDB, MySQL and"
            + " H2");
  }

  /**
   * @param table the audit table's name (validated as an identifier, optionally schema-qualified)
   * @return the DDL that creates the audit table and its (tenant, tool, key) index
   */
  public String auditDdl(String table) {
    String checked = TableName.check(table);
    return resource(auditResource)
        .replace("${table}", checked)
        .replace("${index}", TableName.auditIndexName(checked));
  }

  private static String resource(String name) {
    try (InputStream in = JdbcDialect.class.getResourceAsStream(name)) {
      if (in == null) {
        throw new IllegalStateException("missing resource " + name);
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * @param table the table name (validated as an identifier, optionally schema-qualified)
   * @return the DDL that creates the claims table and its expiry index in this dialect
   */
  public String ddl(String table) {
    String checked = TableName.check(table);
    return resource(schemaResource)
        .replace("${table}", checked)
        .replace("${index}", TableName.indexName(checked));
  }

  /**
   * The procedures of MariaDB and MySQL, as a script for the {@code mariadb} or {@code mysql}
   * client: single-commit mode's claim (a consistent read, then the INSERT when the key is free)
   * and its completion (the UPDATE and the {@code COMMIT}), each one round trip. Without them, the
   * store sends their statements one by one (and says so once in its log). {@code
   * createSchemaIfMissing(true)} creates them with the table.
   *
   * @param table the claims table's name (validated as an identifier, optionally schema-qualified)
   * @return the script ({@code DELIMITER //}, the two {@code CREATE PROCEDURE} statements, {@code
   *     DELIMITER ;}), or empty for dialects that have no procedures
   */
  public Optional<String> claimProcedureDdl(String table) {
    List<String> procedures = procedures(table);
    if (procedures.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(
        "DELIMITER //\n" + String.join("\n//\n", procedures) + "\n//\nDELIMITER ;\n");
  }

  /**
   * @return each {@code CREATE PROCEDURE} statement of this dialect for the table (none but on
   *     MariaDB/MySQL), each to be run as one statement
   */
  List<String> procedures(String table) {
    if (this != MARIADB && this != MYSQL) {
      return List.of();
    }
    String checked = TableName.check(table);
    return List.of(
        resource("claim-mariadb.sql")
            .replace("${procedure}", TableName.claimProcedureName(checked))
            .replace("${table}", checked)
            .strip(),
        resource("complete-commit-mariadb.sql")
            .replace("${procedure}", TableName.completeProcedureName(checked))
            .replace("${table}", checked)
            .strip());
  }

  /**
   * @param claimProcedure true when the table's procedures exist (MariaDB/MySQL only)
   */
  SqlDialect sql(String table, boolean claimProcedure) {
    return switch (this) {
      case POSTGRESQL -> new PostgresSql(table);
      case MARIADB -> new MySqlFamilySql(table, claimProcedure, true);
      case MYSQL -> new MySqlFamilySql(table, claimProcedure, false);
      case H2 -> new H2Sql(table);
    };
  }
}
