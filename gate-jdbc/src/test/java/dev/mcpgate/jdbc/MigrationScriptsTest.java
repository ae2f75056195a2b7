package dev.mcpgate.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The shipped migrations are the store's own DDL for the default table names, so that a schema made
 * by Flyway and one made by {@code createSchemaIfMissing(true)} cannot drift apart. After a change
 * of the DDL, {@code -Dmcpgate.writeMigrations=true} writes the V1 scripts anew (a released
 * version's script is never changed: a change of the tables is a new version's script).
 */
class MigrationScriptsTest {
  static final String CLAIMS = "mcpgate_claims";
  static final String AUDIT = "mcpgate_audit";

  /** The three folders, one per dialect family (MySQL shares MariaDB's). */
  static final List<JdbcDialect> FAMILIES =
      List.of(JdbcDialect.POSTGRESQL, JdbcDialect.MARIADB, JdbcDialect.H2);

  static Path v1(JdbcDialect dialect) {
    return Path.of(
        "src/main/resources",
        dialect.migrationLocation().substring("classpath:".length()),
        "V1__mcpgate_claims_and_audit.sql");
  }

  /**
   * @return what V1 holds: the claims table, the audit table, and on MariaDB/MySQL the procedures
   *     (dropped first, so that a schema whose store created them takes the migration)
   */
  static String expectedV1(JdbcDialect dialect) {
    String claims = dialect.ddl(CLAIMS).strip();
    if (dialect == JdbcDialect.H2) {
      // V1 was published saying BLOB, the same H2 type as the store's BINARY LARGE OBJECT (which
      // MODE=PostgreSQL also accepts); its text stays as published, keeping Flyway's checksum
      claims = claims.replace("BINARY LARGE OBJECT,", "BLOB,");
    }
    StringBuilder sql = new StringBuilder();
    sql.append("-- MCP Gate, migration 1: the claims table ")
        .append(CLAIMS)
        .append(" and the audit table ")
        .append(AUDIT)
        .append(",\n-- as JdbcIdempotencyStore and JdbcAuditSink create them")
        .append(" (createSchemaIfMissing). Generated from\n")
        .append("-- the store's DDL by MigrationScriptsTest; run with a Flyway history table")
        .append(" of its own.\n\n")
        .append(claims)
        .append("\n\n")
        .append(dialect.auditDdl(AUDIT).strip())
        .append('\n');
    List<String> procedures = dialect.procedures(CLAIMS);
    if (!procedures.isEmpty()) {
      sql.append("\nDROP PROCEDURE IF EXISTS ")
          .append(TableName.claimProcedureName(CLAIMS))
          .append(";\nDROP PROCEDURE IF EXISTS ")
          .append(TableName.completeProcedureName(CLAIMS))
          .append(";\n\n")
          .append(dialect.claimProcedureDdl(CLAIMS).orElseThrow());
    }
    return sql.toString();
  }

  @Test
  void eachV1IsTheStoresOwnDdlForTheDefaultTableNames() throws IOException {
    boolean write = Boolean.getBoolean("mcpgate.writeMigrations");
    for (JdbcDialect dialect : FAMILIES) {
      Path file = v1(dialect);
      String expected = expectedV1(dialect);
      if (write) {
        Files.createDirectories(file.getParent());
        Files.writeString(file, expected, StandardCharsets.UTF_8);
      }
      assertThat(Files.readString(file, StandardCharsets.UTF_8))
          .as("%s differs from the store's DDL; -Dmcpgate.writeMigrations=true writes it", file)
          .isEqualTo(expected);
    }
  }

  @Test
  void mySqlTakesMariaDbsFolderAndEveryDialectHasOne() {
    assertThat(JdbcDialect.MYSQL.migrationLocation())
        .isEqualTo(JdbcDialect.MARIADB.migrationLocation())
        .isEqualTo("classpath:db/migration/mcpgate/mariadb");
    for (JdbcDialect dialect : JdbcDialect.values()) {
      assertThat(
              MigrationScriptsTest.class.getResource(
                  "/"
                      + dialect.migrationLocation().substring("classpath:".length())
                      + "/V1__mcpgate_claims_and_audit.sql"))
          .as(dialect.name())
          .isNotNull();
    }
  }
}
