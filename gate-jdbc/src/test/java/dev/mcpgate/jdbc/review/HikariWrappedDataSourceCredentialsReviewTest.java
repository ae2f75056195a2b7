package dev.mcpgate.jdbc.review;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.mcpgate.core.ClaimId;
import dev.mcpgate.core.LeaseToken;
import dev.mcpgate.core.spi.ClaimRequest;
import dev.mcpgate.core.spi.ExtendedLeases;
import dev.mcpgate.core.spi.HeldLease;
import dev.mcpgate.jdbc.JdbcIdempotencyStore;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * Review: for a HikariCP pool that wraps an unpooled data source ({@code setDataSource}), the store
 * opens its renewal connections from that data source with {@code getConnection()}. HikariCP itself
 * calls {@code getConnection(username, password)} when the pool has a user name: a pool whose
 * credentials are the pool's (not the wrapped data source's) serves every tool, while every renewal
 * fails to log in. Each running action's lease then runs out and a retry takes it over (verify()
 * catches it at startup; a store used without it, or a data source whose own credentials name
 * another user, does not). The promise (docs/stores.md): renewals use "the unpooled DataSource the
 * pool wraps" with the pool's credentials, as the pool does.
 */
class HikariWrappedDataSourceCredentialsReviewTest {

  @Test
  void renewalsLogInAsThePoolDoes() throws Exception {
    String url = ReviewDatabases.url("MCPGATE_TEST_POSTGRES_URL");
    String table = "review_hikari_wrapped";
    PGSimpleDataSource raw = new PGSimpleDataSource();
    raw.setURL(url.contains("?") ? url.substring(0, url.indexOf('?')) : url);
    raw.setUser("mcpgate_no_such_role"); // a default the pool's own credentials override
    HikariConfig config = new HikariConfig();
    config.setDataSource(raw);
    config.setUsername("postgres"); // the pool's credentials, not the wrapped source's
    config.setMaximumPoolSize(2);
    config.setPoolName("review-hikari-wrapped");
    try (HikariDataSource pool = new HikariDataSource(config)) {
      try (Connection c = pool.getConnection();
          Statement st = c.createStatement()) {
        st.execute("DROP TABLE IF EXISTS " + table);
      }
      JdbcIdempotencyStore store =
          JdbcIdempotencyStore.builder(pool).tableName(table).createSchemaIfMissing(true).build();
      try {
        ClaimId id = new ClaimId("acme", "export", "k-" + UUID.randomUUID());
        LeaseToken token = LeaseToken.random();
        store.claim(
            new ClaimRequest(id, "v1:h", token, Duration.ofSeconds(5), Duration.ofMinutes(1)));

        ExtendedLeases renewed =
            store.extendLeases(
                List.of(new HeldLease(id, token)), Duration.ofSeconds(5), Duration.ofSeconds(2));

        assertThat(renewed.extended()).containsExactly(token);
      } finally {
        store.close();
      }
    }
  }
}
