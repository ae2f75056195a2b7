package dev.mcpgate.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.mcpgate.core.ClaimId;
import dev.mcpgate.core.LeaseToken;
import dev.mcpgate.core.spi.ClaimAttempt;
import dev.mcpgate.core.spi.ClaimRequest;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * MariaDB/MySQL purge takes no lock on a live row: with a live row locked by another transaction
 * (as a claim, renewal or completion in flight would hold it), a purge still deletes the expired
 * rows at once instead of waiting on that lock, and 16 threads claiming meanwhile are not held up
 * by it. Under REPEATABLE READ a range DELETE locks every row it scans, live ones included.
 */
class MariaDbPurgeTest {

  @Test
  void aPurgeNeitherWaitsOnNorLocksLiveRows() throws Exception {
    TestDatabases.Target db = TestDatabases.mariadb();
    HikariConfig config = new HikariConfig();
    // a short lock wait, so that a purge that waited on the live row fails fast instead of 50 s
    config.setJdbcUrl(
        db.url()
            + (db.url().contains("?") ? "&" : "?")
            + "sessionVariables=innodb_lock_wait_timeout=3");
    if (db.user() != null) {
      config.setUsername(db.user());
      config.setPassword(db.password());
    }
    config.setMaximumPoolSize(24);
    String tenant = "purge-" + UUID.randomUUID();
    try (HikariDataSource ds = new HikariDataSource(config);
        JdbcIdempotencyStore store =
            JdbcIdempotencyStore.builder(ds)
                .tableName("mcpgate_purge_claims")
                .createSchemaIfMissing(true)
                .build()) {
      // the oldest row is live and locked; the expired ones come after it
      ClaimId live = new ClaimId(tenant, "refund_order", "live");
      store.claim(
          new ClaimRequest(
              live, "v1:a", LeaseToken.random(), Duration.ofMinutes(10), Duration.ofHours(1)));
      Thread.sleep(5);
      for (int i = 0; i < 50; i++) {
        store.claim(
            new ClaimRequest(
                new ClaimId(tenant, "refund_order", "old-" + i),
                "v1:a",
                LeaseToken.random(),
                Duration.ofMillis(100),
                Duration.ofMillis(100)));
      }
      Thread.sleep(300);
      ExecutorService claimers = Executors.newFixedThreadPool(16);
      try (Connection holder = ds.getConnection()) {
        holder.setAutoCommit(false);
        try (PreparedStatement lock =
            holder.prepareStatement(
                "SELECT * FROM mcpgate_purge_claims"
                    + " WHERE tenant = ? AND tool = ? AND idem_key = ? FOR UPDATE")) {
          ClaimRows.bindKey(lock, 1, live);
          lock.executeQuery().close();
        }
        List<Future<ClaimAttempt>> claims = new ArrayList<>();
        for (int i = 0; i < 16; i++) {
          ClaimId fresh = new ClaimId(tenant, "refund_order", "fresh-" + i);
          claims.add(
              claimers.submit(
                  () ->
                      store.claim(
                          new ClaimRequest(
                              fresh,
                              "v1:a",
                              LeaseToken.random(),
                              Duration.ofMinutes(1),
                              Duration.ofHours(1)))));
        }

        int purged = 0;
        int round;
        do {
          round = store.purgeExpired(20);
          purged += round;
        } while (round == 20);

        assertThat(purged)
            .as("every expired row, none waiting on the locked live row")
            .isGreaterThanOrEqualTo(50);
        for (Future<ClaimAttempt> claim : claims) {
          assertThat(claim.get(30, TimeUnit.SECONDS)).isInstanceOf(ClaimAttempt.Acquired.class);
        }
        holder.rollback();
      } finally {
        claimers.shutdownNow();
      }
      assertThat(store.find(live)).as("the live row is kept").isPresent();
      assertThat(store.find(new ClaimId(tenant, "refund_order", "old-0"))).isEmpty();
    }
  }
}
