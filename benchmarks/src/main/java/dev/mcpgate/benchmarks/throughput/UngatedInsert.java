package dev.mcpgate.benchmarks.throughput;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import javax.sql.DataSource;

/**
 * The business write with no gate at all (one auto-committed INSERT), and a SELECT of it by primary
 * key: the ceiling for a gated write to the same database.
 */
final class UngatedInsert implements Contender {
  private DataSource dataSource;

  @Override
  public String name() {
    return "ungated business INSERT";
  }

  @Override
  public void reset(DataSource dataSource, Database database) throws Exception {
    this.dataSource = dataSource;
    Sql.createBusinessTable(dataSource);
  }

  @Override
  public void fresh(String key) throws Exception {
    try (Connection c = dataSource.getConnection()) {
      Sql.insertBusinessRow(c, key);
    }
  }

  @Override
  public void replay(String key) throws Exception {
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps = c.prepareStatement("SELECT note FROM bench_business WHERE k = ?")) {
      ps.setString(1, key);
      try (ResultSet rs = ps.executeQuery()) {
        Sql.expect(rs.next(), "missing", key);
      }
    }
  }
}
