package dev.mcpgate.jdbc.review;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.core.GateResult;
import dev.mcpgate.core.IdempotencyGate;
import dev.mcpgate.core.ResultMapper;
import dev.mcpgate.core.ToolCall;
import dev.mcpgate.jdbc.ClaimsTableException;
import dev.mcpgate.jdbc.JdbcIdempotencyStore;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;

/**
 * Review: keys are exact ({@code ClaimId}: "kept exactly as given"; MariaDB's table uses VARBINARY
 * so that they "compare byte for byte: no case folding ... whatever the server's default
 * collation"). H2's table declares plain VARCHAR, which an H2 database opened with {@code
 * IGNORECASE=TRUE} (a usual setting beside {@code MODE=MySQL} for tests that stand in for MySQL)
 * creates as VARCHAR_IGNORECASE: the keys {@code Refund-1} and {@code refund-1} are then one
 * primary key, and the second call is answered with the first one's result (the first's action
 * "replayed" for a call that never ran), and {@code verify()} passes the table. The promise: two
 * keys that differ are two claims, or the store refuses the table.
 */
class H2IgnoreCaseKeysReviewTest {

  @Test
  void keysThatDifferOnlyInCaseAreTwoClaims() {
    JdbcDataSource h2 = new JdbcDataSource();
    h2.setURL("jdbc:h2:mem:review_h2_ignorecase;MODE=MySQL;IGNORECASE=TRUE;DB_CLOSE_DELAY=-1");
    JdbcIdempotencyStore store =
        JdbcIdempotencyStore.builder(h2)
            .tableName("review_ignorecase")
            .createSchemaIfMissing(true)
            .build();
    try {
      store.verify();
    } catch (ClaimsTableException refused) {
      // the store refuses the table, naming why and what mends it: the promise kept
      assertThat(refused.getMessage()).contains("IGNORECASE");
      assertThat(refused.statements()).contains("SET IGNORECASE FALSE");
      return;
    }
    IdempotencyGate gate = IdempotencyGate.builder(store).build();
    AtomicInteger runs = new AtomicInteger();
    Map<String, Object> args = Map.of("order_id", "ord_1");

    GateResult<String> upper =
        gate.execute(
            ToolCall.of("acme", "refund_order", "Refund-1", args),
            ResultMapper.utf8(),
            ctx -> "refund " + runs.incrementAndGet() + " for Refund-1");
    GateResult<String> lower =
        gate.execute(
            ToolCall.of("acme", "refund_order", "refund-1", args),
            ResultMapper.utf8(),
            ctx -> "refund " + runs.incrementAndGet() + " for refund-1");

    assertThat(upper).isInstanceOf(GateResult.Executed.class);
    assertThat(lower)
        .as("another key: its own call, not the other key's result")
        .isInstanceOf(GateResult.Executed.class);
    assertThat(runs).hasValue(2);
  }
}
