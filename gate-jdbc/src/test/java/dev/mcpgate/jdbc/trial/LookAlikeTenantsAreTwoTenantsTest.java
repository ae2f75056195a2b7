package dev.mcpgate.jdbc.trial;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.mcpgate.core.ClaimId;
import dev.mcpgate.core.LeaseToken;
import dev.mcpgate.core.spi.ClaimAttempt;
import dev.mcpgate.core.spi.ClaimRequest;
import dev.mcpgate.jdbc.JdbcIdempotencyStore;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Claims are keyed by (tenant, tool, key) exactly as given: a store that compared them under a
 * case- or accent-insensitive collation would put two tenants in one row, and one would be handed
 * the other's result. The store TCK checks two plainly different tenants and a key kept with its
 * spaces; these pin tenants and keys that differ only in case, in accents, in Unicode normalization
 * (NFC and NFD) and in a trailing space, on PostgreSQL and MariaDB as they run here.
 */
class LookAlikeTenantsAreTwoTenantsTest {

  private static HikariDataSource pool(String backend) {
    HikariConfig config = new HikariConfig();
    if (backend.equals("postgres")) {
      config.setJdbcUrl("jdbc:postgresql://127.0.0.1:5432/test");
      config.setUsername("postgres");
      config.setPassword("postgres");
    } else {
      config.setJdbcUrl("jdbc:mariadb://127.0.0.1:3306/test");
      config.setUsername("root");
      config.setPassword("");
    }
    config.setMaximumPoolSize(2);
    try {
      return new HikariDataSource(config);
    } catch (RuntimeException unreachable) {
      Assumptions.abort(backend + " is not reachable at " + config.getJdbcUrl());
      throw unreachable;
    }
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"postgres", "mariadb"})
  void tenantsAndKeysThatOnlyLookAlikeAreApart(String backend) {
    String run = UUID.randomUUID().toString().substring(0, 8);
    List<String> lookAlikes =
        List.of(
            "context:acme-" + run,
            "context:ACME-" + run,
            "context:acmé-" + run,
            "context:acme\u0301-" + run,
            "context:acme-" + run + " ");
    try (HikariDataSource ds = pool(backend);
        JdbcIdempotencyStore store =
            JdbcIdempotencyStore.builder(ds)
                .tableName("mcpgate_trial_lookalike")
                .createSchemaIfMissing(true)
                .build()) {
      for (String tenant : lookAlikes) {
        ClaimAttempt attempt =
            store.claim(
                new ClaimRequest(
                    new ClaimId(tenant, "refund", "k"),
                    "v1:" + tenant.hashCode(),
                    LeaseToken.random(),
                    Duration.ofMinutes(1),
                    Duration.ofMinutes(5)));
        assertThat(attempt).as("tenant %s", tenant).isInstanceOf(ClaimAttempt.Acquired.class);
      }
      for (String key : List.of("Order-" + run, "order-" + run, "ordér-" + run)) {
        ClaimAttempt attempt =
            store.claim(
                new ClaimRequest(
                    new ClaimId("context:acme-" + run, "refund", key),
                    "v1:" + key.hashCode(),
                    LeaseToken.random(),
                    Duration.ofMinutes(1),
                    Duration.ofMinutes(5)));
        assertThat(attempt).as("key %s", key).isInstanceOf(ClaimAttempt.Acquired.class);
      }
    }
  }
}
