package dev.mcpgate.jdbc.trial;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.mcpgate.core.ClaimId;
import dev.mcpgate.core.LeaseToken;
import dev.mcpgate.core.spi.ClaimRequest;
import dev.mcpgate.jdbc.JdbcIdempotencyStore;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * docs/security.md, threat table: "purges take no lock on live rows (PostgreSQL {@code SKIP
 * LOCKED}; ...)", held there by MariaDbPurgeTest only. On PostgreSQL: with a live row and an
 * expired row each locked by another transaction (a claim or takeover in flight), a purge (with a 3
 * s lock timeout, so that waiting fails the test) deletes the other expired rows at once, skips the
 * locked one and leaves the live one. Runs on the local server (127.0.0.1:5432; skipped when it is
 * not reachable).
 */
class PostgresPurgeSkipsLockedRowsTest {

  @Test
  void aPurgeNeitherWaitsOnNorDeletesLockedRows() throws Exception {
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl("jdbc:postgresql://127.0.0.1:5432/test");
    config.setUsername("postgres");
    config.setPassword("postgres");
    config.setMaximumPoolSize(4);
    config.setConnectionInitSql("SET lock_timeout = '3s'");
    HikariDataSource ds;
    try {
      ds = new HikariDataSource(config);
    } catch (RuntimeException unreachable) {
      Assumptions.abort("PostgreSQL is not reachable at " + config.getJdbcUrl());
      return;
    }
    String tenant = "purge-" + UUID.randomUUID();
    try (ds;
        JdbcIdempotencyStore store =
            JdbcIdempotencyStore.builder(ds)
                .tableName("mcpgate_trial_purge")
                .createSchemaIfMissing(true)
                .build()) {
      ClaimId live = new ClaimId(tenant, "refund_order", "live");
      store.claim(
          new ClaimRequest(
              live, "v1:a", LeaseToken.random(), Duration.ofMinutes(10), Duration.ofHours(1)));
      for (int i = 0; i < 30; i++) {
        store.claim(
            new ClaimRequest(
                new ClaimId(tenant, "refund_order", "old-" + i),
                "v1:a",
                LeaseToken.random(),
                Duration.ofMillis(100),
                Duration.ofMillis(100)));
      }
      Thread.sleep(300);
      ClaimId lockedExpired = new ClaimId(tenant, "refund_order", "old-0");
      try (Connection holder = ds.getConnection()) {
        holder.setAutoCommit(false);
        for (ClaimId id : new ClaimId[] {live, lockedExpired}) {
          try (PreparedStatement lock =
              holder.prepareStatement(
                  "SELECT * FROM mcpgate_trial_purge"
                      + " WHERE tenant = ? AND tool = ? AND idem_key = ? FOR UPDATE")) {
            lock.setString(1, id.tenant());
            lock.setString(2, id.tool());
            lock.setString(3, id.key());
            lock.executeQuery().close();
          }
        }
        long start = System.nanoTime();
        int purged = 0;
        int round;
        do {
          round = store.purgeExpired(10);
          purged += round;
        } while (round == 10);
        long millis = (System.nanoTime() - start) / 1_000_000;

        assertThat(purged).as("the 29 expired rows no one holds").isGreaterThanOrEqualTo(29);
        assertThat(millis).as("no wait on a locked row").isLessThan(3000);
        holder.rollback();
      }
      assertThat(store.find(live)).as("the live row is kept").isPresent();
      assertThat(store.find(lockedExpired)).as("the locked expired row was skipped").isPresent();
      assertThat(store.find(new ClaimId(tenant, "refund_order", "old-1"))).isEmpty();
    }
  }
}
