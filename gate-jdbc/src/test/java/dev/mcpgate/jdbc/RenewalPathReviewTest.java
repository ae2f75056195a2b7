package dev.mcpgate.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.mcpgate.core.StoreUnavailableException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.Properties;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;

/** Review of the renewal-path verify (7d06544, 2f80c62): failing tests. */
class RenewalPathReviewTest {
  private static final String URL = "jdbc:h2:mem:mcpgate_review_rv;DB_CLOSE_DELAY=-1";

  /**
   * A HikariCP pool that wraps a DataSource (setDataSource) and sets the schema of its connections
   * (setSchema; connectionInitSql "SET search_path .." behaves alike): the claims table resolves in
   * that schema through the pool. RenewalSource.fromHikari takes the wrapped DataSource raw and
   * drops the pool's schema/catalog/init SQL, so renewals do not see the table: verify() now fails
   * a working setup (and before 7d06544 every renewal failed silently).
   */
  @Test
  void aHikariPoolWrappingADataSourceWithASchemaPassesVerify() throws Exception {
    try (Connection c = DriverManager.getConnection(URL, "sa", "");
        Statement st = c.createStatement()) {
      st.execute("CREATE SCHEMA IF NOT EXISTS GATE_RV");
    }
    JdbcDataSource raw = new JdbcDataSource();
    raw.setURL(URL);
    raw.setUser("sa");
    raw.setPassword("");
    HikariConfig config = new HikariConfig();
    config.setDataSource(raw);
    config.setSchema("GATE_RV");
    config.setMaximumPoolSize(2);
    try (HikariDataSource pool = new HikariDataSource(config)) {
      JdbcIdempotencyStore store =
          JdbcIdempotencyStore.builder(pool)
              .tableName("mg_rv_schema_" + Long.toHexString(System.nanoTime()))
              .createSchemaIfMissing(true)
              .build();
      try {
        assertThat(catchThrowable(store::verify)).as("verify of a working pool").isNull();
      } finally {
        store.close();
      }
    }
  }

  /**
   * The Javadoc says verify() throws StoreUnavailableException when the renewals' own connection
   * cannot log in; a properties supplier that throws (a credentials provider that is down) escapes
   * verify() raw, without the message that says what failed and why it matters.
   */
  @Test
  void aThrowingPropertiesSupplierFailsVerifyAsStoreUnavailable() {
    HikariDataSource pool = TestDatabases.pool(TestDatabases.h2(), "renewal-review-h2", 2);
    JdbcIdempotencyStore store =
        JdbcIdempotencyStore.builder(pool)
            .tableName("mg_rv_sup_" + Long.toHexString(System.nanoTime()))
            .createSchemaIfMissing(true)
            .renewalConnectionsFromDriver(
                TestDatabases.h2().url(),
                () -> {
                  throw new IllegalStateException("vault sealed");
                },
                null)
            .build();
    try {
      assertThat(catchThrowable(store::verify))
          .isInstanceOf(StoreUnavailableException.class)
          .hasMessageContaining("lease renewals of table");
    } finally {
      store.close();
      TestDatabases.closePools("renewal-review-h2");
    }
  }

  @SuppressWarnings("unused")
  private static Properties none() {
    return new Properties();
  }
}
