package dev.mcpgate.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.core.ClaimId;
import dev.mcpgate.core.LeaseToken;
import dev.mcpgate.core.StoreUnavailableException;
import dev.mcpgate.core.spi.ClaimAttempt;
import dev.mcpgate.core.spi.ClaimRequest;
import dev.mcpgate.core.spi.ExtendedLeases;
import dev.mcpgate.core.spi.HeldLease;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Credentials that rotate under a store whose renewals come from the driver ({@code
 * renewalConnectionsFromDriver} with a properties supplier, as the Quarkus extension passes a
 * credentials provider's): the kept renewal connection goes on renewing after the rotation, and
 * when it is cut, the new one logs in with the supplier's new credentials, since the old ones no
 * longer log in. A supplier asked once and cached would lose every lease from then on.
 */
class RenewalCredentialsRotationTest {
  private static final Duration LONG = Duration.ofMinutes(1);
  private static final Duration WITHIN = Duration.ofMillis(1250);

  private final String suffix = UUID.randomUUID().toString().replace("-", "").substring(0, 10);
  private final String table = "rot_claims_" + suffix;
  private final String app = "mcpgate-rot-" + suffix;
  private final String before = "rot_a_" + suffix;
  private final String after = "rot_b_" + suffix;
  private final TestDatabases.Target pg = TestDatabases.postgres();
  private final List<AutoCloseable> cleanup = new ArrayList<>();

  @AfterEach
  void cleanUp() throws Exception {
    for (int i = cleanup.size() - 1; i >= 0; i--) {
      try {
        cleanup.get(i).close();
      } catch (Exception e) {
        // best effort
      }
    }
  }

  @Test
  void aCutRenewalConnectionLogsInAgainWithTheRotatedCredentials() throws Exception {
    for (String role : List.of(before, after)) {
      sql("CREATE ROLE " + role + " LOGIN PASSWORD 'pw-" + suffix + "'");
      cleanup.add(() -> dropRole(role));
    }
    AtomicReference<String> user = new AtomicReference<>(before);
    AtomicInteger asked = new AtomicInteger();
    Supplier<Properties> credentials =
        () -> {
          asked.incrementAndGet();
          Properties p = new Properties();
          p.setProperty("user", user.get());
          p.setProperty("password", "pw-" + suffix);
          p.setProperty("ApplicationName", app);
          return p;
        };
    String url = pg.url().replaceFirst("\\?.*$", ""); // the credentials come from the supplier only
    cleanup.add(() -> TestDatabases.closePools("rotation")); // holds none of the server's 100
    JdbcIdempotencyStore store =
        JdbcIdempotencyStore.builder(TestDatabases.pool(pg, "rotation", 2))
            .tableName(table)
            .createSchemaIfMissing(true)
            .renewalConnectionsFromDriver(url, credentials, null)
            .build();
    cleanup.add(store);
    cleanup.add(() -> sql("DROP TABLE IF EXISTS " + table));
    HeldLease held = claim(store); // creates the table
    for (String role : List.of(before, after)) {
      sql("GRANT SELECT, INSERT, UPDATE, DELETE ON " + table + " TO " + role);
    }

    assertThat(store.extendLeases(List.of(held), LONG, WITHIN).extended())
        .containsExactly(held.token());
    assertThat(renewalUsers()).as("the renewal connection's user").containsExactly(before);

    // the rotation: new credentials from now on, the old ones no longer log in
    user.set(after);
    sql("ALTER ROLE " + before + " NOLOGIN");
    assertThat(store.extendLeases(List.of(held), LONG, WITHIN).extended())
        .as("the kept connection renews on")
        .containsExactly(held.token());

    sql(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = '"
            + app
            + "'");
    // as the gate's renewer does: a try that fails is followed by the next one
    List<Object> tries = new ArrayList<>();
    ExtendedLeases answer = null;
    for (int i = 0; i < 5 && (answer == null || answer.extended().isEmpty()); i++) {
      try {
        answer = store.extendLeases(List.of(held), LONG, WITHIN);
        tries.add(answer);
      } catch (StoreUnavailableException e) {
        tries.add(e.getMessage());
      }
    }

    assertThat(answer)
        .as("renewed after the cut; tries %s; the supplier was asked %s times", tries, asked.get())
        .isNotNull();
    assertThat(answer.extended()).containsExactly(held.token());
    assertThat(renewalUsers()).as("the new renewal connection's user").containsExactly(after);
  }

  private HeldLease claim(JdbcIdempotencyStore store) {
    ClaimId id = new ClaimId("acme", "refund_order", "rotate-" + suffix);
    LeaseToken token = LeaseToken.random();
    assertThat(store.claim(new ClaimRequest(id, "h", token, LONG, Duration.ofMinutes(10))))
        .isInstanceOf(ClaimAttempt.Acquired.class);
    return new HeldLease(id, token);
  }

  private List<String> renewalUsers() throws SQLException {
    List<String> users = new ArrayList<>();
    try (Connection c = DriverManager.getConnection(pg.url(), pg.user(), pg.password());
        Statement s = c.createStatement();
        ResultSet rs =
            s.executeQuery(
                "SELECT usename FROM pg_stat_activity WHERE application_name = '" + app + "'")) {
      while (rs.next()) {
        users.add(rs.getString(1));
      }
    }
    return users;
  }

  private void dropRole(String role) throws SQLException {
    sql("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = '" + role + "'");
    sql("DROP OWNED BY " + role);
    sql("DROP ROLE IF EXISTS " + role);
  }

  private void sql(String statement) throws SQLException {
    try (Connection c = DriverManager.getConnection(pg.url(), pg.user(), pg.password());
        Statement s = c.createStatement()) {
      s.execute(statement);
    }
  }
}
