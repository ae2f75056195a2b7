package dev.mcpgate.jdbc.review;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.core.ClaimId;
import dev.mcpgate.core.LeaseToken;
import dev.mcpgate.core.spi.ClaimRequest;
import dev.mcpgate.core.spi.HeldLease;
import dev.mcpgate.jdbc.JdbcIdempotencyStore;
import dev.mcpgate.store.tck.fault.FaultProxy;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import javax.sql.DataSource;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.mariadb.jdbc.MariaDbDataSource;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * Review: {@code extendLeases(leases, lease, within)} promises {@code within} as its deadline ("the
 * connection's network timeout"; the gate gives a try up at {@code within} and counts it as still
 * waiting until it returns). The store sets that timeout only on a connection already open. A
 * renewal connection opened from a source the store uses as it is (a driver's unpooled data source
 * such as {@code PGSimpleDataSource}, the unpooled data source a HikariCP pool wraps, or {@code
 * renewalConnections(..)}) is opened with no deadline: against a server that accepts the TCP
 * connection and then says nothing (a hung server, a proxy or balancer that lost its backend, a
 * path that drops packets), the driver's defaults decide: about 5 s on PostgreSQL (1 s asked),
 * longer than 30 s on MariaDB (MariaDbDataSource: no socket timeout). Each try holds a renewal
 * thread that long, and the gate lets at most four wait at once ({@code
 * LeaseRenewer.MAX_TRIES_WAITING}): past them, every lease of the group is told it was not renewed
 * until the hung opens return, even once the server answers again. The promise: a renewal ends
 * (extended, or failed as unknown) within about its deadline.
 */
class RenewalOpenDeadlineReviewTest {

  /** The driver's own unpooled data source, which the store uses as it is for renewals. */
  private static DataSource unpooled(String url) throws Exception {
    if (url.startsWith("jdbc:postgresql:")) {
      PGSimpleDataSource pg = new PGSimpleDataSource();
      pg.setURL(url);
      return pg;
    }
    return new MariaDbDataSource(url);
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"MCPGATE_TEST_POSTGRES_URL", "MCPGATE_TEST_MARIADB_URL"})
  void aRenewalWhoseConnectionCannotOpenEndsWithinItsDeadline(String env) throws Exception {
    String url = ReviewDatabases.url(env);
    String table = "review_renewal_open";
    try (FaultProxy proxy = FaultProxy.to(url)) {
      DataSource ds = unpooled(proxy.relayedJdbcUrl(url));
      try (Connection c = ds.getConnection();
          Statement st = c.createStatement()) {
        st.execute("DROP TABLE IF EXISTS " + table);
      }
      JdbcIdempotencyStore store =
          JdbcIdempotencyStore.builder(ds).tableName(table).createSchemaIfMissing(true).build();
      try {
        ClaimId id = new ClaimId("acme", "export", "k-" + UUID.randomUUID());
        LeaseToken token = LeaseToken.random();
        store.claim(
            new ClaimRequest(id, "v1:h", token, Duration.ofSeconds(5), Duration.ofMinutes(1)));

        proxy.blackholeNew(true); // new connections open at TCP and then hear nothing
        CompletableFuture<Object> renewal =
            CompletableFuture.supplyAsync(
                () -> {
                  try {
                    return store.extendLeases(
                        List.of(new HeldLease(id, token)),
                        Duration.ofSeconds(5),
                        Duration.ofSeconds(1));
                  } catch (RuntimeException e) {
                    return e; // failing as unknown is a fine answer; hanging is not
                  }
                });
        try {
          renewal.get(3, TimeUnit.SECONDS);
        } catch (TimeoutException e) {
          throw new AssertionError(
              "a renewal with a deadline of 1 s had not ended after 3 s: it waits on opening its"
                  + " connection with no deadline",
              e);
        } catch (ExecutionException e) {
          // ended
        } finally {
          proxy.restoreAll();
          proxy.blackholeNew(false);
        }
        assertThat(renewal).isDone();
      } finally {
        store.close();
      }
    }
  }
}
