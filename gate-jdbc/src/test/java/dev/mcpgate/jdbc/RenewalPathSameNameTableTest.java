package dev.mcpgate.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.zaxxer.hikari.HikariDataSource;
import dev.mcpgate.core.StoreUnavailableException;
import java.util.Properties;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * stores.md: "a renewal path that cannot log in, or that reaches another database, fails the
 * check". A renewal path that reaches another database holding a table of the same name (the
 * default name {@code mcpgate_claims} in a staging database on the same server, or another
 * schema's table) passes {@code verify()}: every renewal then finds no row, the gate reports the
 * lease lost, the real row's lease runs out and a retry runs the action a second time (seen in a
 * trial on PostgreSQL: pool on schema A, renewals with {@code currentSchema=B}, both with the
 * default table; the 9 s action ran twice). FAILS at the time of writing: verify() passes.
 */
class RenewalPathSameNameTableTest {
  @AfterAll
  static void closePools() {
    TestDatabases.closePools("renewal-twin-h2");
  }

  @Test
  void renewalsThatReachATableOfTheSameNameInAnotherDatabaseFailTheCheck() {
    String table = "mg_twin_" + Long.toHexString(System.nanoTime());
    String twinUrl = "jdbc:h2:mem:mcpgate_renewal_twin;DB_CLOSE_DELAY=-1";
    JdbcDataSource twin = new JdbcDataSource();
    twin.setURL(twinUrl);
    JdbcIdempotencyStore elsewhere =
        JdbcIdempotencyStore.builder(twin).tableName(table).createSchemaIfMissing(true).build();
    elsewhere.verify(); // the same table name, in another database
    elsewhere.close();

    HikariDataSource pool = TestDatabases.pool(TestDatabases.h2(), "renewal-twin-h2", 2);
    JdbcIdempotencyStore store =
        JdbcIdempotencyStore.builder(pool)
            .tableName(table)
            .createSchemaIfMissing(true)
            .renewalConnectionsFromDriver(twinUrl, new Properties())
            .build();
    try {
      StoreUnavailableException e =
          catchThrowableOfType(StoreUnavailableException.class, store::verify);

      assertThat(e).as("verify with renewals on another database's table of that name").isNotNull();
    } finally {
      store.close();
    }
  }
}
