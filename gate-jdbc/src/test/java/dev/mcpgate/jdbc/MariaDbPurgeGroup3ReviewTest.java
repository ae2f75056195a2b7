package dev.mcpgate.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.mcpgate.core.ClaimId;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.DriverManager;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.mariadb.jdbc.MariaDbPoolDataSource;

/**
 * A third review of the MariaDB purge (bc87574, which set READ COMMITTED and put it back through
 * JDBC): the driver's own pool then reset a purged connection to its default isolation, and an
 * unchecked failure mid-purge left READ COMMITTED and no lock wait on the session. Both failed
 * there; the purge now sets the isolation by SQL and puts both back whatever the failure.
 */
class MariaDbPurgeGroup3ReviewTest {
  private static final String TABLE = "rvg3_purge_group";

  /**
   * Failed at bc87574 (a finding, low for the gate, real for the application): the driver's own
   * pool ({@link MariaDbPoolDataSource}) marks a connection whose isolation was set through JDBC,
   * and on its return sets it to REPEATABLE READ (the driver's default when the URL names none),
   * not to what the session had. A pool whose sessions are SERIALIZABLE by {@code sessionVariables}
   * (or by the server's global setting) hands out, after one purge, a connection at REPEATABLE
   * READ: the application's next transaction on it runs weaker than configured. Before bc87574 the
   * purge never touched the isolation through JDBC, and the connection came back as it went.
   */
  @Test
  void aPurgeLeavesTheDriversPoolsIsolationAsConfigured() throws Exception {
    TestDatabases.Target db = TestDatabases.mariadb();
    String url =
        db.url()
            + (db.url().contains("?") ? "&" : "?")
            + "maxPoolSize=1&sessionVariables=tx_isolation='SERIALIZABLE'"
            + (db.user() != null && !db.url().contains("user=") ? "&user=" + db.user() : "");
    String tenant = "rvg3-" + UUID.randomUUID();
    try (MariaDbPoolDataSource ds = new MariaDbPoolDataSource(url);
        JdbcIdempotencyStore store = MariaDbPurgeFixtures.store(ds, TABLE)) {
      MariaDbPurgeFixtures.purgeAll(store);
      try (Connection c = ds.getConnection()) {
        assertThat(SqlDialect.queryOne(c, "SELECT @@SESSION.tx_isolation"))
            .isEqualTo("SERIALIZABLE");
      }
      MariaDbPurgeFixtures.expiring(store, new ClaimId(tenant, "t", "k"));
      Thread.sleep(300);
      assertThat(store.purgeExpired(500)).isPositive();
      try (Connection c = ds.getConnection()) {
        assertThat(SqlDialect.queryOne(c, "SELECT @@SESSION.tx_isolation"))
            .as("the isolation of the pool's next borrower after a purge")
            .isEqualTo("SERIALIZABLE");
      }
    }
  }

  /**
   * Failed at bc87574 (a finding, low): the purge put the isolation (and the lock wait) back only
   * when the failure is an {@link java.sql.SQLException}. An unchecked failure between the set and
   * the restore (here a driver's {@code IllegalStateException} on preparing the group statement; an
   * {@code OutOfMemoryError} or a driver bug would do the same) returns the connection at READ
   * COMMITTED with {@code innodb_lock_wait_timeout} 0: a pool that does not track them (none tracks
   * the lock wait, set by SQL) hands both to its next borrower.
   */
  @Test
  void anUncheckedFailureMidPurgeLeavesTheSessionAsItCame() throws Exception {
    String tenant = "rvg3-" + UUID.randomUUID();
    try (var ds = MariaDbPurgeFixtures.pool(20, 1, "");
        JdbcIdempotencyStore store = MariaDbPurgeFixtures.store(ds, TABLE)) {
      MariaDbPurgeFixtures.purgeAll(store);
      MariaDbPurgeFixtures.expiring(store, new ClaimId(tenant, "t", "k"));
      Thread.sleep(300);
    }
    TestDatabases.Target db = TestDatabases.mariadb();
    try (Connection real = DriverManager.getConnection(db.url(), db.user(), db.password())) {
      String before =
          SqlDialect.queryOne(
              real,
              "SELECT CONCAT(@@SESSION.tx_isolation, ' ', @@SESSION.innodb_lock_wait_timeout)");
      Connection failing =
          (Connection)
              Proxy.newProxyInstance(
                  Connection.class.getClassLoader(),
                  new Class<?>[] {Connection.class},
                  (proxy, method, args) -> {
                    if (method.getName().equals("prepareStatement")
                        && String.valueOf(args[0]).startsWith("SET STATEMENT")) {
                      throw new IllegalStateException("the driver failed unchecked");
                    }
                    try {
                      return method.invoke(real, args);
                    } catch (InvocationTargetException e) {
                      throw e.getCause();
                    }
                  });
      MySqlFamilySql sql = new MySqlFamilySql(TABLE, false, true);
      assertThatThrownBy(() -> sql.purge(failing, 500)).isInstanceOf(IllegalStateException.class);
      assertThat(
              SqlDialect.queryOne(
                  real,
                  "SELECT CONCAT(@@SESSION.tx_isolation, ' ', @@SESSION.innodb_lock_wait_timeout)"))
          .as("the session after a purge that failed unchecked")
          .isEqualTo(before);
    }
  }
}
