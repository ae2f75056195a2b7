package dev.mcpgate.benchmarks.throughput;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.UUID;
import javax.sql.DataSource;

/**
 * The floor any JDBC idempotency store pays: an insert-if-absent of the key (one commit), then a
 * token-checked update that stores the result (a second commit); a replay is a SELECT by primary
 * key. No hashing, no clock, no lease: what is left when everything but the two writes is gone.
 */
final class RawFloor implements Contender {
  private static final byte[] RESULT = new byte[64];

  private DataSource dataSource;
  private String insert;

  @Override
  public String name() {
    return "raw SQL floor (2 commits / PK SELECT)";
  }

  @Override
  public void reset(DataSource dataSource, Database database) throws Exception {
    this.dataSource = dataSource;
    this.insert = database.insertIfAbsent.formatted("bench_raw");
    Sql.execute(
        dataSource,
        "DROP TABLE IF EXISTS bench_raw",
        "CREATE TABLE bench_raw (k VARCHAR(255) PRIMARY KEY, token VARCHAR(64) NOT NULL,"
            + " state VARCHAR(16) NOT NULL, result "
            + database.bytes
            + ")");
  }

  @Override
  public void fresh(String key) throws Exception {
    String token = UUID.randomUUID().toString();
    try (Connection c = dataSource.getConnection()) {
      try (PreparedStatement ps = c.prepareStatement(insert)) {
        ps.setString(1, key);
        ps.setString(2, token);
        Sql.expect(ps.executeUpdate() == 1, "duplicate", key);
      }
      try (PreparedStatement ps =
          c.prepareStatement(
              "UPDATE bench_raw SET state = 'COMPLETED',"
                  + " result = ? WHERE k = ? AND token = ?")) {
        ps.setBytes(1, RESULT);
        ps.setString(2, key);
        ps.setString(3, token);
        Sql.expect(ps.executeUpdate() == 1, "lost", key);
      }
    }
  }

  @Override
  public void replay(String key) throws Exception {
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps =
            c.prepareStatement("SELECT state, result FROM bench_raw WHERE k = ?")) {
      ps.setString(1, key);
      try (ResultSet rs = ps.executeQuery()) {
        Sql.expect(rs.next(), "missing", key);
      }
    }
  }
}
