package dev.mcpgate.jdbc.review;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariDataSource;
import dev.mcpgate.core.ClaimId;
import dev.mcpgate.core.LeaseToken;
import dev.mcpgate.core.spi.ClaimAttempt;
import dev.mcpgate.core.spi.ClaimRequest;
import dev.mcpgate.jdbc.ClaimsTableException;
import dev.mcpgate.jdbc.JdbcDialect;
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
 * Review: {@code verify()} is the startup check "that the store is usable": it compares every
 * column and its width and the purge index, but not the primary key on (tenant, tool, idem_key),
 * the one thing the claim's atomicity rests on on MariaDB/MySQL and H2 (a SELECT, then a plain
 * INSERT that the key lets only one racer win). A table that lost it (re-created with {@code CREATE
 * TABLE .. AS SELECT}, a dump restored without constraints, DDL copied without its key line)
 * verifies, and two calls of one key that race both INSERT their row: both are told "acquired" and
 * the action runs twice. The promise: verify() fails naming what makes the table unsafe.
 */
class VerifyRequiresThePrimaryKeyReviewTest {

  @Test
  void aTableWithoutItsPrimaryKeyDoesNotVerify() throws Exception {
    String table = "review_no_pk";
    try (HikariDataSource pool = ReviewDatabases.mariadb("no-pk", 20)) {
      String ddl =
          JdbcDialect.MARIADB.ddl(table).replace("  PRIMARY KEY (tenant, tool, idem_key),\n", "");
      assertThat(ddl).doesNotContain("PRIMARY KEY");
      try (Connection c = pool.getConnection();
          Statement st = c.createStatement()) {
        st.execute("DROP TABLE IF EXISTS " + table);
        st.execute(ddl);
      }
      JdbcIdempotencyStore store = JdbcIdempotencyStore.builder(pool).tableName(table).build();

      // what the missing key costs: racing first calls of one key, each told it acquired the key
      int acquired = 0;
      ExecutorService threads = Executors.newFixedThreadPool(16);
      try {
        for (int trial = 0; trial < 5 && acquired < 2; trial++) {
          ClaimId id = new ClaimId("acme", "refund_order", "ord-" + trial);
          CountDownLatch start = new CountDownLatch(1);
          List<CompletableFuture<ClaimAttempt>> claims = new ArrayList<>();
          for (int i = 0; i < 16; i++) {
            claims.add(
                CompletableFuture.supplyAsync(
                    () -> {
                      try {
                        start.await();
                      } catch (InterruptedException e) {
                        throw new IllegalStateException(e);
                      }
                      return store.claim(
                          new ClaimRequest(
                              id,
                              "v1:h",
                              LeaseToken.random(),
                              Duration.ofSeconds(30),
                              Duration.ofMinutes(5)));
                    },
                    threads));
          }
          start.countDown();
          acquired = 0;
          for (CompletableFuture<ClaimAttempt> claim : claims) {
            if (claim.get(30, TimeUnit.SECONDS) instanceof ClaimAttempt.Acquired) {
              acquired++;
            }
          }
        }
      } finally {
        threads.shutdownNow();
      }

      assertThatThrownBy(store::verify)
          .as("verify() of a table on which %d racing calls of one key all acquired it", acquired)
          .isInstanceOf(ClaimsTableException.class)
          .hasMessageContaining("primary key");
    }
  }
}
