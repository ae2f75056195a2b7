package dev.mcpgate.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.zaxxer.hikari.HikariDataSource;
import dev.mcpgate.core.StoreUnavailableException;
import java.util.Properties;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * {@link JdbcIdempotencyStore#verify()} opens a renewal connection, as a renewal would: a renewal
 * path that cannot log in, or that reaches another database, stops a startup check instead of
 * letting every lease run out while its action runs (a retry would then take the key over and run
 * the action again).
 */
class RenewalPathVerifyTest {
  @AfterAll
  static void closePools() {
    TestDatabases.closePools("renewal-verify-pg", "renewal-verify-h2");
  }

  private static String fresh() {
    return "mg_rv_" + Long.toHexString(System.nanoTime());
  }

  @Test
  void renewalsThatCannotLogInFailTheCheckAndSaySo() {
    TestDatabases.Target pg = TestDatabases.postgres();
    HikariDataSource pool = TestDatabases.pool(pg, "renewal-verify-pg", 2);
    Properties nobody = new Properties();
    nobody.setProperty("user", "mcpgate_no_such_role");
    nobody.setProperty("password", "wrong");
    JdbcIdempotencyStore store =
        JdbcIdempotencyStore.builder(pool)
            .tableName(fresh())
            .createSchemaIfMissing(true)
            // the URL's own user (the test variable's ?user=postgres) would win over the properties
            .renewalConnectionsFromDriver(pg.url().replaceFirst("\\?.*$", ""), nobody)
            .build();
    try {
      StoreUnavailableException e =
          catchThrowableOfType(StoreUnavailableException.class, store::verify);

      assertThat(e).as("verify with renewals that cannot log in").isNotNull();
      assertThat(e.getMessage())
          .contains("lease renewals of table")
          .contains("could not connect")
          .contains("a retry takes its key over");
    } finally {
      store.close();
    }
  }

  @Test
  void renewalsThatReachAnotherDatabaseFailTheCheck() {
    HikariDataSource pool = TestDatabases.pool(TestDatabases.h2(), "renewal-verify-h2", 2);
    JdbcIdempotencyStore store =
        JdbcIdempotencyStore.builder(pool)
            .tableName(fresh())
            .createSchemaIfMissing(true)
            .renewalConnectionsFromDriver(
                "jdbc:h2:mem:mcpgate_renewal_elsewhere;DB_CLOSE_DELAY=-1", new Properties())
            .build();
    try {
      StoreUnavailableException e =
          catchThrowableOfType(StoreUnavailableException.class, store::verify);

      assertThat(e).as("verify with renewals on another database").isNotNull();
      assertThat(e.getMessage()).contains("does not see the table");
    } finally {
      store.close();
    }
  }

  @Test
  void renewalsOnTheStoresOwnDatabasePassTheCheck() {
    TestDatabases.Target h2 = TestDatabases.h2();
    HikariDataSource pool = TestDatabases.pool(h2, "renewal-verify-h2", 2);
    Properties same = new Properties();
    if (h2.user() != null) {
      same.setProperty("user", h2.user());
    }
    if (h2.password() != null) {
      same.setProperty("password", h2.password());
    }
    JdbcIdempotencyStore store =
        JdbcIdempotencyStore.builder(pool)
            .tableName(fresh())
            .createSchemaIfMissing(true)
            .renewalConnectionsFromDriver(h2.url(), same)
            .build();
    try {
      store.verify();
    } finally {
      store.close();
    }
  }

  @Test
  void renewalPropertiesFromASupplierAreAskedForAgainForEachNewConnection() {
    TestDatabases.Target pg = TestDatabases.postgres();
    HikariDataSource pool = TestDatabases.pool(pg, "renewal-verify-pg", 2);
    String url = pg.url().replaceFirst("\\?.*$", "");
    java.util.regex.Matcher inUrl =
        java.util.regex.Pattern.compile("[?&]user=([^&]+)").matcher(pg.url());
    String user = pg.user() != null ? pg.user() : inUrl.find() ? inUrl.group(1) : "postgres";
    java.util.concurrent.atomic.AtomicInteger asked =
        new java.util.concurrent.atomic.AtomicInteger();
    JdbcIdempotencyStore store =
        JdbcIdempotencyStore.builder(pool)
            .tableName(fresh())
            .createSchemaIfMissing(true)
            .renewalConnectionsFromDriver(
                url,
                () -> {
                  Properties p = new Properties();
                  // rotated credentials: wrong at first, right from the second connection on
                  boolean rotated = asked.incrementAndGet() > 1;
                  p.setProperty("user", rotated ? user : "mcpgate_no_such_role");
                  if (rotated && pg.password() != null) {
                    p.setProperty("password", pg.password());
                  }
                  return p;
                },
                null)
            .build();
    try {
      assertThat(catchThrowableOfType(StoreUnavailableException.class, store::verify))
          .as("the first connection, with the credentials of before")
          .isNotNull();
      store.verify(); // a new connection, with the credentials of now
      assertThat(asked).hasValueGreaterThanOrEqualTo(2);
    } finally {
      store.close();
    }
  }
}
