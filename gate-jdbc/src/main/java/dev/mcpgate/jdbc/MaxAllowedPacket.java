package dev.mcpgate.jdbc;

import dev.mcpgate.core.ClaimId;
import dev.mcpgate.core.ResultTooLargeException;
import dev.mcpgate.core.spi.StoredResult;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * MariaDB's and MySQL's {@code max_allowed_packet}, the most one statement may carry: a completion
 * whose result would not fit is refused with {@link ResultTooLargeException} before it is sent. A
 * statement over it is refused by the server, which drops the connection: the completion failed as
 * a socket error (the store told as unavailable, the key fenced as unknown for the retention, the
 * pool's connection lost), naming neither the limit nor the size ({@code
 * MariaDbMaxAllowedPacketEdgeTest}).
 *
 * <p>The server's value is read at the store's setup, and again on the completion's own connection
 * whenever a result would not fit the value last read (an operator may have raised the global
 * setting since; it holds for connections opened afterwards). A result is counted as the driver
 * sends it in a text statement, with room for the rest of the statement: MariaDB Connector/J
 * escapes each quote, backslash and NUL byte; MySQL Connector/J sends the bytes as hex, two
 * characters each (it refuses a statement over the limit itself, without sending it).
 */
final class MaxAllowedPacket {
  /** Room for the completion statement's text, key, token and framing (keys are 1020 bytes). */
  static final int STATEMENT_ROOM = 16 * 1024;

  private volatile long known; // 0 until read
  private volatile boolean hex; // MySQL Connector/J: two bytes a result byte

  /**
   * @throws ResultTooLargeException naming the result's size and the server's limit, when the
   *     completion of {@code result} would be larger than the server takes; nothing was sent
   */
  void check(Connection c, ClaimId id, StoredResult result) throws SQLException {
    long limit = known;
    long needed = needed(result.body(), hex);
    if (limit > 0 && needed <= limit) {
      return;
    }
    learn(c);
    limit = known;
    needed = needed(result.body(), hex);
    if (needed > limit) {
      throw new ResultTooLargeException(
          "the result of "
              + id
              + " is "
              + result.body().length
              + " bytes ("
              + needed
              + " in the completion statement), more than the server's max_allowed_packet of "
              + limit
              + " bytes takes in one statement; nothing was written (raise max_allowed_packet,"
              + " or keep maxResultBytes under it)",
          result.body().length,
          limit);
    }
  }

  /**
   * @param hex true when the driver sends bytes as hex (MySQL Connector/J)
   * @return the bytes the completion statement needs for {@code body}, escaped as text
   */
  static long needed(byte[] body, boolean hex) {
    if (hex) {
      return 2L * body.length + STATEMENT_ROOM;
    }
    long escaped = 0;
    for (byte b : body) {
      if (b == 0 || b == '\'' || b == '"' || b == '\\') {
        escaped++;
      }
    }
    return body.length + escaped + STATEMENT_ROOM;
  }

  /** Reads the server's value on {@code c} (at setup, and when a result would not fit). */
  void learn(Connection c) throws SQLException {
    hex = c.getMetaData().getDriverName().startsWith("MySQL Connector");
    try (PreparedStatement ps = c.prepareStatement("SELECT @@max_allowed_packet");
        ResultSet rs = ps.executeQuery()) {
      rs.next();
      known = rs.getLong(1);
    }
  }
}
