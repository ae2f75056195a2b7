package dev.mcpgate.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.mcpgate.core.ClaimId;
import dev.mcpgate.core.LeaseToken;
import dev.mcpgate.core.spi.ClaimAttempt;
import dev.mcpgate.core.spi.ClaimRequest;
import dev.mcpgate.core.spi.ExtendedLeases;
import dev.mcpgate.core.spi.HeldLease;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A HikariCP pool configured with {@code dataSourceClassName} (and {@code dataSourceProperties})
 * has neither a JDBC URL nor a data source object to read: its renewals must still come from the
 * unpooled data source HikariCP made from the class name, never from the pool, which the tools may
 * hold in full (docs/stores.md, "Lease renewals on a connection of their own").
 */
class HikariDataSourceClassNameEdgeTest {
  private static final Duration LEASE = Duration.ofMinutes(1);
  private static final Duration WITHIN = Duration.ofMillis(1250); // the default deadline
  private static final String PG_SIMPLE = "org.postgresql.ds.PGSimpleDataSource";

  private final String table =
      "edge_dscn_" + UUID.randomUUID().toString().replace("-", "").substring(0, 10);
  private final List<AutoCloseable> cleanup = new ArrayList<>();

  @AfterEach
  void cleanUp() throws Exception {
    for (int i = cleanup.size() - 1; i >= 0; i--) {
      cleanup.get(i).close();
    }
  }

  private static HikariConfig byClassName() {
    HikariConfig config = new HikariConfig();
    config.setDataSourceClassName(PG_SIMPLE);
    config.addDataSourceProperty("url", TestDatabases.postgres().url());
    config.setMaximumPoolSize(2);
    config.setConnectionTimeout(10_000);
    config.setPoolName("edge-dscn");
    return config;
  }

  @Test
  void renewalsOfAPoolTheToolsHoldInFullComeFromTheDataSourceItMadeFromTheClassName()
      throws Exception {
    HikariDataSource pool = new HikariDataSource(byClassName());
    cleanup.add(pool);
    assertThat(pool.getJdbcUrl()).isNull();
    assertThat(pool.getDataSource()).isNull();
    RenewalSource source = RenewalSource.choose(pool, null, null);
    assertThat(source.sharesPool()).as(source.description()).isFalse();
    assertThat(source.description()).contains(PG_SIMPLE).contains("dataSourceClassName");

    JdbcIdempotencyStore store =
        JdbcIdempotencyStore.builder(pool).tableName(table).createSchemaIfMissing(true).build();
    cleanup.add(
        () -> {
          try (Connection c = pool.getConnection();
              Statement s = c.createStatement()) {
            s.execute("DROP TABLE IF EXISTS " + table);
          }
        });
    cleanup.add(store);
    ClaimId id = new ClaimId("acme", "refund_order", "dscn-1");
    LeaseToken token = LeaseToken.random();
    assertThat(store.claim(new ClaimRequest(id, "h", token, LEASE, Duration.ofMinutes(10))))
        .isInstanceOf(ClaimAttempt.Acquired.class);

    // the tools hold every connection of the pool while the first renewal opens its connection
    try (Connection held1 = pool.getConnection();
        Connection held2 = pool.getConnection()) {
      assertThat(pool.getHikariPoolMXBean().getIdleConnections()).isZero();

      ExtendedLeases answer = store.extendLeases(List.of(new HeldLease(id, token)), LEASE, WITHIN);

      assertThat(answer.extended()).as("%s", answer).containsExactly(token);
      assertThat(pool.getHikariPoolMXBean().getTotalConnections())
          .as("connections of the pool")
          .isEqualTo(2);
    }
  }

  /** A pool not started yet has no data source to unwrap: the try fails, the pool is untouched. */
  @Test
  void aPoolNotStartedFailsTheRenewalTryNamingWhyAndIsNotBorrowedFrom() {
    HikariDataSource pool = new HikariDataSource();
    byClassName().copyStateTo(pool);
    cleanup.add(pool);
    RenewalSource source = RenewalSource.choose(pool, null, null);
    assertThat(source.sharesPool()).isFalse();

    assertThatThrownBy(() -> source.open(WITHIN))
        .isInstanceOf(SQLException.class)
        .hasMessageContaining(PG_SIMPLE)
        .hasMessageContaining("not started");
    assertThat(pool.isRunning()).as("the pool was started by a renewal").isFalse();
  }

  /** A class name that unwraps to the pool itself must not turn into borrowing from the pool. */
  @Test
  void aClassNameThatUnwrapsToThePoolItselfIsRefused() {
    HikariDataSource pool = new HikariDataSource();
    pool.setDataSourceClassName(HikariDataSource.class.getName());
    cleanup.add(pool);

    assertThatThrownBy(() -> RenewalSource.choose(pool, null, null).open(WITHIN))
        .isInstanceOf(SQLException.class)
        .hasMessageContaining("unwraps to the pool itself");
    assertThat(pool.isRunning()).as("the pool was started by a renewal").isFalse();
  }
}
