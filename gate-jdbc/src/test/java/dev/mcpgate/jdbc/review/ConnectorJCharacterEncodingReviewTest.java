package dev.mcpgate.jdbc.review;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.mcpgate.core.GateResult;
import dev.mcpgate.core.IdempotencyGate;
import dev.mcpgate.core.ResultMapper;
import dev.mcpgate.core.ToolCall;
import dev.mcpgate.jdbc.ClaimsTableException;
import dev.mcpgate.jdbc.JdbcIdempotencyStore;
import java.sql.Connection;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Review: the MariaDB/MySQL table keeps keys as VARBINARY "so that they compare byte for byte"; the
 * bytes are whatever the driver sends for {@code setString}. MySQL Connector/J with {@code
 * characterEncoding=latin1} (a common legacy MySQL URL, {@code useUnicode=true&characterEncoding=
 * ISO-8859-1}) encodes a key on the client, and every character latin1 has not becomes {@code ?}:
 * the keys {@code 注文-1} and {@code 返金-1} are both stored as {@code ??-1}, one claim, and the second
 * intent is answered with the first one's result. The store's own table, created by the store;
 * {@code verify()} passes.
 */
class ConnectorJCharacterEncodingReviewTest {

  @Test
  void keysALatin1ConnectionCannotCarryAreNeverOneClaim() throws Exception {
    String tenant = "acme-" + UUID.randomUUID();
    twoIdentities(tenant, "\u6ce8\u6587-1", tenant, "\u8fd4\u91d1-1");
  }

  /**
   * Two tenants (principals named in a script latin1 has not): tenant B is answered with tenant A's
   * stored result, across the tenant boundary.
   */
  @Test
  void tenantsALatin1ConnectionCannotCarryAreNeverOneClaim() throws Exception {
    String key = "k-" + UUID.randomUUID();
    twoIdentities("principal:\u5c71\u7530", key, "principal:\u7530\u4e2d", key);
  }

  private static void twoIdentities(String tenantA, String keyA, String tenantB, String keyB)
      throws Exception {
    String mariadb = ReviewDatabases.url("MCPGATE_TEST_MARIADB_URL");
    String url =
        "jdbc:mysql:"
            + mariadb.substring("jdbc:mariadb:".length())
            + (mariadb.contains("?") ? "&" : "?")
            + "characterEncoding=latin1";
    String table = "rv_latin1_" + Long.toHexString(System.nanoTime());
    try (HikariDataSource ds = ReviewDatabases.pool(url, "latin1-cj", 2)) {
      JdbcIdempotencyStore store =
          JdbcIdempotencyStore.builder(ds).tableName(table).createSchemaIfMissing(true).build();
      try {
        try {
          store.verify();
        } catch (ClaimsTableException refused) {
          return; // refused, naming why: the promise kept
        }
        IdempotencyGate gate = IdempotencyGate.builder(store).build();
        AtomicInteger runs = new AtomicInteger();
        Map<String, Object> args = Map.of("order_id", "o1");
        GateResult<String> first =
            gate.execute(
                ToolCall.of(tenantA, "refund_order", keyA, args),
                ResultMapper.utf8(),
                ctx -> "run " + runs.incrementAndGet() + " for " + tenantA + "/" + keyA);
        GateResult<String> second =
            gate.execute(
                ToolCall.of(tenantB, "refund_order", keyB, args),
                ResultMapper.utf8(),
                ctx -> "run " + runs.incrementAndGet() + " for " + tenantB + "/" + keyB);
        assertThat(List.of(first, second))
            .as(
                "(%s, %s) after (%s, %s): each identity its own claim, or refused naming the"
                    + " connection; never told the other one's result",
                tenantB, keyB, tenantA, keyA)
            .allSatisfy(ClaimsTableIdentityReviewTest::ownClaimOrRefusedNamingTheTable);
      } finally {
        store.close();
        try (Connection c = ds.getConnection();
            Statement st = c.createStatement()) {
          st.execute("DROP TABLE IF EXISTS " + table);
          st.execute("DROP PROCEDURE IF EXISTS " + table + "_claim_v1");
          st.execute("DROP PROCEDURE IF EXISTS " + table + "_complete_v1");
        }
      }
    }
  }
}
