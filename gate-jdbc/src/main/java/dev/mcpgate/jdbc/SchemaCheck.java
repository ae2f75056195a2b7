package dev.mcpgate.jdbc;

import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Compares an existing claims table with the one this version's DDL creates ({@link
 * JdbcDialect#ddl}): every column, at least as wide, the primary key on (tenant, tool, idem_key),
 * on which every claim rests, and the purge index on {@code created_at_ms}; and names the
 * statements that bring an older table up to date. Tables made by earlier versions differ in the
 * purge index (on {@code expires_at_ms} before the claim protocol v2, and without PostgreSQL's
 * fillfactor) and, on H2, in the width of the identity columns (255 UTF-16 units before one length
 * unit held everywhere).
 */
final class SchemaCheck {
  private static final String PURGE_COLUMN = "created_at_ms";
  private static final String OLD_PURGE_COLUMN = "expires_at_ms";

  /** PostgreSQL's: room on the page for a completion's HOT update (schema-postgresql.sql). */
  private static final int FILL_FACTOR = 80;

  private static final Pattern COLUMN = Pattern.compile("^\\s+([a-z_]+)\\s+(\\S.*?),?$");
  private static final Pattern WIDTH =
      Pattern.compile("^(VARCHAR|VARBINARY)\\((\\d+)\\)", Pattern.CASE_INSENSITIVE);

  private SchemaCheck() {}

  /**
   * What is out of date, and what to run.
   *
   * @param problems each difference, in words
   * @param statements the statements that mend them, in order (without {@code ;})
   */
  record Upgrade(List<String> problems, List<String> statements) {
    boolean isCurrent() {
      return statements.isEmpty();
    }
  }

  /** A column of the DDL: its name, its definition as the DDL writes it, its width (0: none). */
  record Column(String name, String definition, int width) {}

  /**
   * @return the columns of the table this version creates, in order
   */
  static List<Column> expectedColumns(JdbcDialect dialect, String table) {
    List<Column> columns = new ArrayList<>();
    for (String line : dialect.ddl(table).lines().toList()) {
      Matcher m = COLUMN.matcher(line);
      if (!m.matches() || line.strip().startsWith("PRIMARY") || line.strip().startsWith("KEY")) {
        continue;
      }
      Matcher w = WIDTH.matcher(m.group(2));
      columns.add(new Column(m.group(1), m.group(1) + " " + m.group(2), w.find() ? width(w) : 0));
    }
    return columns;
  }

  private static int width(Matcher w) {
    return Integer.parseInt(w.group(2));
  }

  /**
   * @param table an existing table
   * @return what differs from this version's table, and the statements that mend it
   */
  static Upgrade check(Connection c, JdbcDialect dialect, String table) throws SQLException {
    List<String> problems = new ArrayList<>();
    List<String> statements = new ArrayList<>();
    Map<String, Actual> actual = columns(c, table);
    for (Column column : expectedColumns(dialect, table)) {
      Actual found = actual.get(column.name());
      Integer width = found == null ? null : found.width();
      String narrow = found == null || found.bigint() ? null : found.type();
      if (narrow != null && column.definition().contains(" BIGINT")) {
        problems.add(
            "its column "
                + column.name()
                + " is "
                + narrow
                + ", where this version needs BIGINT: epoch milliseconds do not fit, and a server"
                + " that is not strict clamps them, so a stored result expires as it is written");
        statements.add(
            switch (dialect) {
              case POSTGRESQL ->
                  "ALTER TABLE " + table + " ALTER COLUMN " + column.name() + " TYPE BIGINT";
              case H2 ->
                  "ALTER TABLE "
                      + table
                      + " ALTER COLUMN "
                      + column.name()
                      + " SET DATA TYPE BIGINT";
              case MARIADB, MYSQL ->
                  "ALTER TABLE " + table + " MODIFY COLUMN " + column.definition();
            });
      }
      if (width == null) {
        problems.add("it has no column " + column.name());
        statements.add("ALTER TABLE " + table + " ADD COLUMN " + column.definition());
      } else if (column.width() > 0 && width > 0 && width < column.width()) {
        problems.add(
            "its column "
                + column.name()
                + " holds "
                + width
                + ", where this version needs "
                + column.width());
        statements.add(widen(dialect, table, column));
      }
    }
    Upgrade caseBlind = caseBlindness(c, dialect, table);
    problems.addAll(caseBlind.problems());
    statements.addAll(caseBlind.statements());
    List<String> key = primaryKey(c, table);
    if (!key.equals(KEY_COLUMNS)) {
      problems.add(
          (key.isEmpty()
                  ? "it has no primary key"
                  : "its primary key is on (" + String.join(", ", key) + ")")
              + ", where the claim needs one on ("
              + String.join(", ", KEY_COLUMNS)
              + "): without it two calls of one key can both claim it");
      if (!key.isEmpty()) {
        statements.add(
            dialect == JdbcDialect.POSTGRESQL
                ? "ALTER TABLE " + table + " DROP CONSTRAINT " + primaryKeyName(c, table)
                : "ALTER TABLE " + table + " DROP PRIMARY KEY");
      }
      statements.add(
          "ALTER TABLE " + table + " ADD PRIMARY KEY (" + String.join(", ", KEY_COLUMNS) + ")");
    }
    Map<String, String> indexes = indexes(c, table); // name -> first column
    if (!indexes.containsValue(PURGE_COLUMN)) {
      problems.add("it has no index on " + PURGE_COLUMN + " (the purge's)");
      statements.add(
          "CREATE INDEX "
              + TableName.indexName(table)
              + " ON "
              + table
              + " ("
              + PURGE_COLUMN
              + ")");
    }
    indexes.forEach(
        (name, first) -> {
          if (first.equals(OLD_PURGE_COLUMN)) {
            problems.add(
                "its index "
                    + name
                    + " on "
                    + OLD_PURGE_COLUMN
                    + " is an older version's purge index, which every completion writes to");
            statements.add(dropIndex(dialect, table, name));
          }
        });
    if (dialect == JdbcDialect.POSTGRESQL && !hasFillFactor(c, table)) {
      problems.add(
          "its fillfactor is not "
              + FILL_FACTOR
              + ", so its completions are not HOT updates (applies to pages written from then on)");
      statements.add("ALTER TABLE " + table + " SET (fillfactor = " + FILL_FACTOR + ")");
    }
    return new Upgrade(List.copyOf(problems), List.copyOf(statements));
  }

  /**
   * @return whether a PostgreSQL table has this version's fillfactor
   */
  private static boolean hasFillFactor(Connection c, String table) throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement("SELECT reloptions FROM pg_class WHERE oid = ?::regclass")) {
      ps.setString(1, table);
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next() || rs.getArray(1) == null) {
          return false;
        }
        for (Object option : (Object[]) rs.getArray(1).getArray()) {
          if (("fillfactor=" + FILL_FACTOR).equals(option)) {
            return true;
          }
        }
        return false;
      }
    }
  }

  private static String widen(JdbcDialect dialect, String table, Column column) {
    String type = column.definition().substring(column.name().length() + 1);
    Matcher w = WIDTH.matcher(type);
    String bare = w.find() ? w.group() : type;
    return switch (dialect) {
      case POSTGRESQL ->
          "ALTER TABLE " + table + " ALTER COLUMN " + column.name() + " TYPE " + bare;
      case H2 ->
          "ALTER TABLE " + table + " ALTER COLUMN " + column.name() + " SET DATA TYPE " + bare;
      case MARIADB, MYSQL -> "ALTER TABLE " + table + " MODIFY COLUMN " + column.definition();
    };
  }

  private static String dropIndex(JdbcDialect dialect, String table, String index) {
    int dot = table.indexOf('.');
    return switch (dialect) {
      case POSTGRESQL, H2 -> "DROP INDEX " + (dot < 0 ? "" : table.substring(0, dot + 1)) + index;
      case MARIADB, MYSQL -> "DROP INDEX " + index + " ON " + table;
    };
  }

  /**
   * A column as the table has it.
   *
   * @param width its width (0 when the driver says none)
   * @param type its type's name, as the driver says it
   * @param bigint whether it is a BIGINT
   */
  private record Actual(int width, String type, boolean bigint) {}

  /**
   * @return the table's columns, by lower-case name
   */
  private static Map<String, Actual> columns(Connection c, String table) throws SQLException {
    Map<String, Actual> columns = new HashMap<>();
    try (Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT * FROM " + table + " WHERE 1 = 0")) {
      ResultSetMetaData md = rs.getMetaData();
      for (int i = 1; i <= md.getColumnCount(); i++) {
        int type = md.getColumnType(i);
        boolean sized =
            type == java.sql.Types.VARCHAR
                || type == java.sql.Types.VARBINARY
                || type == java.sql.Types.NVARCHAR;
        columns.put(
            md.getColumnName(i).toLowerCase(Locale.ROOT),
            new Actual(
                sized ? md.getPrecision(i) : 0,
                md.getColumnTypeName(i),
                type == java.sql.Types.BIGINT));
      }
    }
    return columns;
  }

  /**
   * H2 creates VARCHAR columns as VARCHAR_IGNORECASE in a database opened with {@code
   * IGNORECASE=TRUE}: two keys, tenants or tools that differ only in case would be one claim, and a
   * call would be answered with another key's result.
   *
   * @return what differs when a key column of an H2 table compares without case, and what mends it
   *     (nothing on other dialects, whose key columns compare exactly)
   */
  static Upgrade caseBlindness(Connection c, JdbcDialect dialect, String table)
      throws SQLException {
    if (dialect != JdbcDialect.H2) {
      return new Upgrade(List.of(), List.of());
    }
    List<String> blind = new ArrayList<>();
    try (Statement st = c.createStatement();
        ResultSet rs =
            st.executeQuery(
                "SELECT " + String.join(", ", KEY_COLUMNS) + " FROM " + table + " WHERE 1 = 0")) {
      ResultSetMetaData md = rs.getMetaData();
      for (int i = 1; i <= md.getColumnCount(); i++) {
        String type = md.getColumnTypeName(i);
        if (type != null && type.toUpperCase(Locale.ROOT).contains("IGNORECASE")) {
          blind.add(md.getColumnName(i).toLowerCase(Locale.ROOT));
        }
      }
    }
    if (blind.isEmpty()) {
      return new Upgrade(List.of(), List.of());
    }
    List<String> statements = new ArrayList<>();
    statements.add("SET IGNORECASE FALSE");
    for (Column column : expectedColumns(dialect, table)) {
      if (blind.contains(column.name())) {
        statements.add(widen(dialect, table, column));
      }
    }
    return new Upgrade(
        List.of(
            "its columns "
                + String.join(", ", blind)
                + " compare without case (VARCHAR_IGNORECASE: the H2 database was opened with"
                + " IGNORECASE=TRUE), so keys that differ only in case would be one claim"),
        List.copyOf(statements));
  }

  /** The primary key every claim rests on: one row per (tenant, tool, key). */
  private static final List<String> KEY_COLUMNS = List.of("tenant", "tool", "idem_key");

  /**
   * @return the lower-case names of the table's primary key columns, in the key's order (empty when
   *     it has none)
   */
  private static List<String> primaryKey(Connection c, String table) throws SQLException {
    Where w = where(c, table);
    Map<Short, String> columns = new java.util.TreeMap<>();
    try (ResultSet rs = c.getMetaData().getPrimaryKeys(w.catalog(), w.schema(), w.bare())) {
      while (rs.next()) {
        columns.put(rs.getShort("KEY_SEQ"), rs.getString("COLUMN_NAME").toLowerCase(Locale.ROOT));
      }
    }
    return List.copyOf(columns.values());
  }

  /**
   * @return the name of the table's primary key constraint
   */
  private static String primaryKeyName(Connection c, String table) throws SQLException {
    Where w = where(c, table);
    try (ResultSet rs = c.getMetaData().getPrimaryKeys(w.catalog(), w.schema(), w.bare())) {
      return rs.next()
          ? rs.getString("PK_NAME")
          : table.substring(table.indexOf('.') + 1) + "_pkey";
    }
  }

  /**
   * Where the metadata finds a table: its catalog, schema and bare name, as the database keeps
   * them.
   */
  private record Where(String catalog, String schema, String bare) {}

  private static Where where(Connection c, String table) throws SQLException {
    DatabaseMetaData md = c.getMetaData();
    int dot = table.indexOf('.');
    String schema = dot < 0 ? null : table.substring(0, dot);
    String bare = table.substring(dot + 1);
    if (md.storesUpperCaseIdentifiers()) {
      bare = bare.toUpperCase(Locale.ROOT);
      schema = schema == null ? null : schema.toUpperCase(Locale.ROOT);
    } else if (md.storesLowerCaseIdentifiers()) {
      bare = bare.toLowerCase(Locale.ROOT);
      schema = schema == null ? null : schema.toLowerCase(Locale.ROOT);
    }
    boolean catalogs =
        md.supportsCatalogsInDataManipulation() && !md.supportsSchemasInDataManipulation();
    String catalog = catalogs ? (schema != null ? schema : c.getCatalog()) : null;
    String inSchema = catalogs ? null : (schema != null ? schema : c.getSchema());
    return new Where(catalog, inSchema, bare);
  }

  /**
   * @return the table's indexes, by name, with the lower-case name of their first column
   */
  private static Map<String, String> indexes(Connection c, String table) throws SQLException {
    Where w = where(c, table);
    Map<String, String> indexes = new LinkedHashMap<>();
    try (ResultSet rs =
        c.getMetaData().getIndexInfo(w.catalog(), w.schema(), w.bare(), false, true)) {
      while (rs.next()) {
        String name = rs.getString("INDEX_NAME");
        String column = rs.getString("COLUMN_NAME");
        if (name != null && column != null && rs.getShort("ORDINAL_POSITION") == 1) {
          indexes.put(name, column.toLowerCase(Locale.ROOT));
        }
      }
    }
    return indexes;
  }
}
