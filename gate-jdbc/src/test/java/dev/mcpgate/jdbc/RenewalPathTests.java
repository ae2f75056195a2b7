package dev.mcpgate.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.mcpgate.core.ClaimId;
import dev.mcpgate.core.LeaseToken;
import dev.mcpgate.core.StoreUnavailableException;
import dev.mcpgate.core.spi.ClaimAttempt;
import dev.mcpgate.core.spi.ClaimRequest;
import dev.mcpgate.core.spi.ExtendedLeases;
import dev.mcpgate.core.spi.HeldLease;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/**
 * The JDBC store's renewal path: its own connection, taken at setup and kept, so renewals go on
 * while the tools hold the whole pool; one statement per renewal of many leases; a failed
 * connection replaced on the next renewal. Run on each database by {@link JdbcStoreContract}.
 */
interface RenewalPathTests {
  Duration LEASE = Duration.ofMinutes(1);
  Duration DEADLINE = Duration.ofSeconds(5);

  TestDatabases.Target target();

  /**
   * @return a store on the data source, its table the contract's, closed after the test
   */
  JdbcIdempotencyStore storeOn(DataSource data, DataSource renewals);

  String tenantOfTest();

  private List<HeldLease> claimAll(JdbcIdempotencyStore store, String prefix, int n) {
    List<HeldLease> held = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      ClaimId id = new ClaimId(tenantOfTest(), "renew", prefix + i);
      LeaseToken token = LeaseToken.random();
      assertThat(store.claim(new ClaimRequest(id, "h", token, LEASE, Duration.ofMinutes(10))))
          .isInstanceOf(ClaimAttempt.Acquired.class);
      held.add(new HeldLease(id, token));
    }
    return held;
  }

  private static Set<LeaseToken> tokens(List<HeldLease> leases) {
    return leases.stream().map(HeldLease::token).collect(Collectors.toSet());
  }

  @Test
  default void renewalsGoOnWhileTheToolsHoldEveryPooledConnection() throws Exception {
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(target().url());
    if (target().user() != null) {
      config.setUsername(target().user());
      config.setPassword(target().password());
    }
    config.setMaximumPoolSize(3);
    config.setConnectionTimeout(10_000);
    try (HikariDataSource pool = new HikariDataSource(config)) {
      JdbcIdempotencyStore store = storeOn(pool, null);
      List<HeldLease> held = claimAll(store, "busy-pool-", 5);
      assertThat(store.holdsRenewalConnection()).as("nothing renewed yet: nothing held").isFalse();
      List<Connection> tools = new ArrayList<>();
      try {
        while (tools.size() < 3) { // the whole pool: the store keeps none of it
          tools.add(pool.getConnection());
        }
        assertThat(pool.getHikariPoolMXBean().getIdleConnections()).isZero();
        for (int renewal = 0; renewal < 2; renewal++) { // opened, then reopened after a loss
          long started = System.nanoTime();
          ExtendedLeases answer = store.extendLeases(held, LEASE, DEADLINE);
          long tookMs = (System.nanoTime() - started) / 1_000_000;
          assertThat(answer.extended()).isEqualTo(tokens(held));
          assertThat(tookMs)
              .as("a renewal that waited for the pool would take 10 s")
              .isLessThan(5_000);
          store.dropRenewalConnectionForTest();
        }
        assertThat(pool.getHikariPoolMXBean().getTotalConnections())
            .as("the renewals took no connection of the pool")
            .isEqualTo(3);
      } finally {
        for (Connection c : tools) {
          c.close();
        }
      }
    }
  }

  @Test
  default void oneStatementRenewsEveryLeaseAndSaysWhichItRenewed() throws Exception {
    CountingDataSource renewals =
        new CountingDataSource(TestDatabases.pool(target(), "renewals", 2));
    JdbcIdempotencyStore store = storeOn(null, renewals.dataSource());
    List<HeldLease> held = claimAll(store, "one-statement-", 150);
    store.extendLeases(held.subList(0, 1), LEASE, DEADLINE); // opens the renewal connection

    renewals.reset();
    assertThat(store.extendLeases(held, LEASE, DEADLINE).extended()).isEqualTo(tokens(held));
    // MariaDB/MySQL: one batch of single-row UPDATEs, one round trip
    assertThat(renewals.executed()).as("statements for 150 leases").isEqualTo(1);

    List<HeldLease> gone = held.subList(0, 10);
    gone.forEach(h -> assertThat(store.release(h.id(), h.token())).isTrue());
    renewals.reset();
    ExtendedLeases answer = store.extendLeases(held, LEASE, DEADLINE);
    assertThat(answer.extended()).isEqualTo(tokens(held.subList(10, held.size())));
    assertThat(answer.undecided()).isEmpty();
    // PostgreSQL and H2: the UPDATE, and a SELECT as it fell short; MariaDB/MySQL: the batch,
    // and a SELECT of the rows it counted 0 (with useAffectedRows=true, 0 may be a row found and
    // left as it was: MariaDbAffectedRowsEdgeTest)
    assertThat(renewals.executed()).as("statements when some leases are gone").isEqualTo(2);
  }

  @Test
  default void moreLeasesThanOneStatementTakesAreRenewedInStatementsOf200() throws Exception {
    CountingDataSource renewals =
        new CountingDataSource(TestDatabases.pool(target(), "renewals", 2));
    JdbcIdempotencyStore store = storeOn(null, renewals.dataSource());
    List<HeldLease> held = claimAll(store, "many-", 450);
    store.extendLeases(held.subList(0, 1), LEASE, DEADLINE); // opens the renewal connection

    renewals.reset();
    assertThat(store.extendLeases(held, LEASE, DEADLINE).extended()).isEqualTo(tokens(held));
    assertThat(renewals.executed()).isEqualTo(3);
  }

  @Test
  default void aBrokenRenewalConnectionIsReplacedOnTheNextRenewal() throws Exception {
    DataSource real = TestDatabases.pool(target(), "renewals", 2);
    AtomicReference<Connection> last = new AtomicReference<>();
    List<Connection> opened = new ArrayList<>();
    DataSource recording =
        (DataSource)
            Proxy.newProxyInstance(
                DataSource.class.getClassLoader(),
                new Class<?>[] {DataSource.class},
                (proxy, method, args) -> {
                  Object result = method.invoke(real, args);
                  if (result instanceof Connection c) {
                    last.set(c);
                    opened.add(c);
                  }
                  return result;
                });
    JdbcIdempotencyStore store = storeOn(null, recording);
    List<HeldLease> held = claimAll(store, "broken-", 3);
    assertThat(store.extendLeases(held, LEASE, DEADLINE).extended()).hasSize(3);

    last.get().close(); // the connection goes away under the store
    assertThatThrownBy(() -> store.extendLeases(held, LEASE, DEADLINE))
        .isInstanceOf(StoreUnavailableException.class)
        .hasMessageContaining("extend 3 leases");
    assertThat(store.extendLeases(held, LEASE, DEADLINE).extended()).isEqualTo(tokens(held));
    assertThat(opened).hasSize(2);
  }

  @Test
  default void closingTheStoreGivesItsRenewalConnectionBack() {
    JdbcIdempotencyStore store = storeOn(null, TestDatabases.pool(target(), "renewals", 2));
    List<HeldLease> held = claimAll(store, "closed-", 1);
    store.extendLeases(held, LEASE, DEADLINE);
    assertThat(store.holdsRenewalConnection()).isTrue();

    store.close();

    assertThat(store.holdsRenewalConnection()).isFalse();
    assertThatThrownBy(() -> store.extendLeases(held, LEASE, DEADLINE))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("closed");
    store.close(); // twice is fine
  }
}
