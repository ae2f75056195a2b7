package dev.mcpgate.jdbc;

import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.regex.Pattern;
import java.util.zip.CRC32;

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
    return distinct(table.substring(table.indexOf('.') + 1), "_key_idx", false);
  }

  /**
   * @return the name of the table's claim procedure (MariaDB/MySQL), in the table's schema; the
   *     suffix carries the procedure's version, so a changed body gets a name of its own
   */
  static String claimProcedureName(String table) {
    return procedureName(table, "_claim_v1");
  }

  /**
   * @return the name of the table's single-commit completion procedure (MariaDB/MySQL)
   */
  static String completeProcedureName(String table) {
    return procedureName(table, "_complete_v1");
  }

  /**
   * The table's name with the suffix, in the table's schema (see {@link #distinct}; routine names
   * are case-insensitive where table names may not be).
   */
  private static String procedureName(String table, String suffix) {
    int dot = table.indexOf('.');
    String schema = dot < 0 ? "" : table.substring(0, dot + 1);
    return schema + distinct(table.substring(dot + 1), suffix, true);
  }

  /**
   * A name derived from a table's that no other table's can share: the bare name and the suffix
   * when the name is at most 50 characters (and all lower case, where {@code caseBlind}: the
   * derived name's namespace ignores case but table names may not); otherwise its first 41
   * characters, lower-cased, and a digest of the exact name. PostgreSQL and H2 keep index names per
   * schema, so two long table names cut to one prefix would otherwise share one index name, and
   * {@code CREATE INDEX IF NOT EXISTS} would skip the second table's index.
   */
  private static String distinct(String bare, String suffix, boolean caseBlind) {
    if (bare.length() <= 50 && (!caseBlind || bare.equals(bare.toLowerCase(Locale.ROOT)))) {
      return bare + suffix;
    }
    CRC32 crc = new CRC32();
    crc.update(bare.getBytes(StandardCharsets.UTF_8));
    String head = bare.substring(0, Math.min(41, bare.length())).toLowerCase(Locale.ROOT);
    return head + "_" + String.format("%08x", crc.getValue()) + suffix;
  }

  static String indexName(String table) {
    return distinct(table.substring(table.indexOf('.') + 1), "_created_idx", false);
  }
}
