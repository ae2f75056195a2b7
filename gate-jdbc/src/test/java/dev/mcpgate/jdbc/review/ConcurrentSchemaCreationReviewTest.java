package dev.mcpgate.jdbc.review;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.mcpgate.core.ClaimId;
import dev.mcpgate.core.LeaseToken;
import dev.mcpgate.core.spi.ClaimRequest;
import dev.mcpgate.jdbc.JdbcIdempotencyStore;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Review: replicas that start together against a database without the claims table each create it
 * on their first use ({@code createSchemaIfMissing(true)}). On PostgreSQL two sessions running
 * {@code CREATE TABLE IF NOT EXISTS} (or {@code CREATE INDEX IF NOT EXISTS}) for the same name at
 * once can fail with a unique violation in the catalog (23505 on pg_type or pg_class) instead of
 * skipping: the first call of that replica is refused as "could not connect to set up the JDBC
 * store" though the database is up and the table now exists. The promise of {@code
 * createSchemaIfMissing}: the first use creates the table, or finds it made by another.
 */
class ConcurrentSchemaCreationReviewTest {

  @Test
  void replicasCreatingTheTableAtOnceAllGetTheirFirstCallThrough() throws Exception {
    int replicas = 8;
    try (HikariDataSource pool = ReviewDatabases.postgres("schema-race", replicas + 2)) {
      ExecutorService threads = Executors.newFixedThreadPool(replicas);
      try {
        List<String> failures = new ArrayList<>();
        for (int trial = 0; trial < 10; trial++) {
          String table = "review_schema_race_" + trial;
          try (Connection c = pool.getConnection();
              Statement st = c.createStatement()) {
            st.execute("DROP TABLE IF EXISTS " + table);
          }
          CountDownLatch start = new CountDownLatch(1);
          List<CompletableFuture<Void>> calls = new ArrayList<>();
          for (int r = 0; r < replicas; r++) {
            int replica = r;
            calls.add(
                CompletableFuture.runAsync(
                    () -> {
                      JdbcIdempotencyStore store =
                          JdbcIdempotencyStore.builder(pool)
                              .tableName(table)
                              .createSchemaIfMissing(true)
                              .build();
                      try {
                        start.await();
                      } catch (InterruptedException e) {
                        throw new IllegalStateException(e);
                      }
                      store.claim(
                          new ClaimRequest(
                              new ClaimId("acme", "tool", "k" + replica),
                              "v1:h",
                              LeaseToken.random(),
                              Duration.ofSeconds(5),
                              Duration.ofMinutes(1)));
                    },
                    threads));
          }
          start.countDown();
          for (CompletableFuture<Void> call : calls) {
            try {
              call.get(60, TimeUnit.SECONDS);
            } catch (java.util.concurrent.ExecutionException e) {
              failures.add(table + ": " + e.getCause().getMessage());
            }
          }
        }
        assertThat(failures).as("first calls refused while the table was being created").isEmpty();
      } finally {
        threads.shutdownNow();
      }
    }
  }
}
