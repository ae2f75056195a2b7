package dev.mcpgate.benchmarks.throughput;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import javax.sql.DataSource;

/**
 * A tool's read-modify-write transaction with no gate ({@link Sql#transfer}, then COMMIT), and a
 * SELECT of its ledger row by primary key: the ceiling for the same transaction in single-commit
 * mode.
 */
final class UngatedTransaction implements Contender {
  private DataSource dataSource;

  @Override
  public String name() {
    return "ungated read-modify-write transaction";
  }

  @Override
  public void reset(DataSource dataSource, Database database) throws Exception {
    this.dataSource = dataSource;
    Sql.createAccounts(dataSource);
  }

  @Override
  public void fresh(String key) throws Exception {
    try (Connection c = dataSource.getConnection()) {
      c.setAutoCommit(false);
      try {
        Sql.transfer(c, key);
        c.commit();
      } catch (Exception e) {
        c.rollback();
        throw e;
      } finally {
        c.setAutoCommit(true);
      }
    }
  }

  @Override
  public void replay(String key) throws Exception {
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps = c.prepareStatement("SELECT amount FROM bench_ledger WHERE k = ?")) {
      ps.setString(1, key);
      try (ResultSet rs = ps.executeQuery()) {
        Sql.expect(rs.next(), "missing", key);
      }
    }
  }
}
