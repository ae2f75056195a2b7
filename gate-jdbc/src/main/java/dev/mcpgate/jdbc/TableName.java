package dev.mcpgate.jdbc;

import java.util.regex.Pattern;

/** Table names are checked as identifiers and never concatenated into SQL unchecked. */
final class TableName {
  private static final Pattern IDENTIFIER =
      Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,62}(\\.[A-Za-z_][A-Za-z0-9_]{0,62})?");

  private TableName() {}

  static String check(String table) {
    if (table == null || !IDENTIFIER.matcher(table).matches()) {
      throw new IllegalArgumentException(
          "table name "
              + (table == null ? "null" : "\"" + table + "\"")
              + " is not a plain SQL identifier: use letters, digits and underscores (at most 63),"
              + " starting with a letter or underscore, optionally as schema.table");
    }
    return table;
  }

  static String auditIndexName(String table) {
    String bare = table.substring(table.indexOf('.') + 1);
    return (bare.length() > 50 ? bare.substring(0, 50) : bare) + "_key_idx";
  }

  static String indexName(String table) {
    String bare = table.substring(table.indexOf('.') + 1);
    return (bare.length() > 50 ? bare.substring(0, 50) : bare) + "_created_idx";
  }
}
