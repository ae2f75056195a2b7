package dev.mcpgate.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.mcpgate.core.ClaimId;
import dev.mcpgate.core.LeaseToken;
import dev.mcpgate.core.spi.ClaimAttempt;
import dev.mcpgate.core.spi.ClaimRequest;
import dev.mcpgate.core.spi.ExtendedLeases;
import dev.mcpgate.core.spi.HeldLease;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * MariaDB's driver option {@code useAffectedRows=true} counts the rows an UPDATE changed, not the
 * rows it found: a lease extension in the same millisecond as the claim (or the previous extension)
 * writes the value the row already has and reports 0. The store must still answer "extended" while
 * the token holds the row, and "lost" once it does not.
 */
class MariaDbAffectedRowsEdgeTest {
  private static final Duration LEASE = Duration.ofMinutes(1);
  private static final Duration WITHIN = Duration.ofSeconds(5);
  private static final int ROUNDS = 500;

  private final String table =
      "edge_rows_" + UUID.randomUUID().toString().replace("-", "").substring(0, 10);
  private HikariDataSource pool;
  private JdbcIdempotencyStore store;
  private String url;

  /** The server and driver: MariaDB's driver here; Connector/J has the same option. */
  TestDatabases.Target target() {
    return TestDatabases.mariadb();
  }

  @BeforeEach
  void openStore() {
    TestDatabases.Target target = target();
    url = target.url() + (target.url().contains("?") ? "&" : "?") + "useAffectedRows=true";
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(url);
    if (target.user() != null) {
      config.setUsername(target.user());
      config.setPassword(target.password());
    }
    config.setMaximumPoolSize(2);
    pool = new HikariDataSource(config);
    store = JdbcIdempotencyStore.builder(pool).tableName(table).createSchemaIfMissing(true).build();
  }

  @AfterEach
  void dropTable() throws Exception {
    store.close();
    try (Connection c = pool.getConnection();
        Statement s = c.createStatement()) {
      s.execute("DROP TABLE IF EXISTS " + table);
    } finally {
      pool.close();
    }
  }

  @Test
  void extendLeaseInTheSameMillisecondAsTheLastWriteAnswersExtended() {
    HeldLease held = claim("one-" + table);
    for (int i = 0; i < ROUNDS; i++) {
      assertThat(store.extendLease(held.id(), held.token(), LEASE))
          .as("extension %d of a lease the token still holds", i)
          .isTrue();
    }
  }

  @Test
  void extendLeasesInTheSameMillisecondAsTheLastWriteAnswersExtended() {
    HeldLease held = claim("many-" + table);
    for (int i = 0; i < ROUNDS; i++) {
      ExtendedLeases answer = store.extendLeases(List.of(held), LEASE, WITHIN);
      assertThat(answer.extended())
          .as("renewal %d of a lease the token still holds: %s", i, answer)
          .containsExactly(held.token());
    }
  }

  /** The read that rescues a 0 answer: it must not rescue a token that lost the row. */
  @Test
  void aTokenThatLostTheRowIsStillToldSo() throws Exception {
    HeldLease held = claim("lost-" + table);
    try (Connection c = DriverManager.getConnection(url);
        Statement s = c.createStatement()) {
      s.executeUpdate("UPDATE " + table + " SET lease_token = 'someone-else'");
    }
    assertThat(store.extendLease(held.id(), held.token(), LEASE)).isFalse();
    ExtendedLeases answer = store.extendLeases(List.of(held), LEASE, WITHIN);
    assertThat(answer.extended()).as("%s", answer).isEmpty();
    assertThat(answer.undecided()).as("%s", answer).isEmpty();
  }

  private HeldLease claim(String key) {
    ClaimId id = new ClaimId("acme", "refund_order", key);
    LeaseToken token = LeaseToken.random();
    assertThat(store.claim(new ClaimRequest(id, "h", token, LEASE, Duration.ofMinutes(10))))
        .isInstanceOf(ClaimAttempt.Acquired.class);
    return new HeldLease(id, token);
  }
}
