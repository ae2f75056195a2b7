package dev.mcpgate.quarkus.deployment.review;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.quarkus.deployment.TestClient;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import io.quarkus.test.QuarkusUnitTest;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Review N. The gate runs outside {@code @Transactional} "so that a result is stored only after the
 * method's transaction has committed" (GateInterceptor's javadoc). But a JTA transaction also
 * COMMITS when the method throws a checked exception (Jakarta Transactions' default) or a runtime
 * exception named in {@code dontRollbackOn}. The effect (a row) is then committed, the gate sees
 * only the exception, takes it for "the action did not run", releases the key, and a retry with the
 * same key writes the effect again. Needs PostgreSQL at 127.0.0.1:5432 (database test, user
 * postgres).
 */
class CommittingFailureReviewTest {
  static final String TABLE = ChargeTables.create("review-n-table");

  @RegisterExtension
  static final QuarkusUnitTest APP =
      ChargeTables.app(
          "review-n",
          CommittingFailureTools.class,
          CommittingFailureTools.NotifyFailedException.class,
          CommittingFailureReviewTest.class,
          SilentRollbackTools.class,
          SilentRollbackTools.Audit.class);

  private static final TestClient CLIENT = new TestClient();

  @AfterAll
  static void close() {
    CLIENT.close();
  }

  @Test
  void aCheckedExceptionAfterTheCommitDoesNotLetTheRetryChargeAgain() throws Exception {
    twiceAndCount("chargeChecked");
  }

  @Test
  void aDontRollbackOnExceptionAfterTheCommitDoesNotLetTheRetryChargeAgain() throws Exception {
    twiceAndCount("chargeDontRollback");
  }

  /**
   * The transaction was marked rollback-only inside the method (a REQUIRED bean's failure, caught);
   * Quarkus's interceptor then rolls back without throwing, and the gate stores the method's
   * "charged" as the call's outcome: the caller and every retry are told it was charged, and it
   * never was (no row); the intent can never run again under its key.
   */
  @Test
  void aResultWhoseTransactionRolledBackIsNotStoredAsDone() throws Exception {
    String order = UUID.randomUUID().toString();
    CallToolRequest call =
        new CallToolRequest(
            "chargeAudited",
            Map.of("order_id", order, "idempotency_key", UUID.randomUUID().toString()));
    CallToolResult first = CLIENT.get().callTool(call);
    CallToolResult retry = CLIENT.get().callTool(call);
    int rows = rows(order);
    assertThat(rows == 1 || Boolean.TRUE.equals(retry.isError()))
        .as(
            "the retry is told %s %s (meta %s), the first %s; charge rows in the database: %s",
            retry.isError(), retry.content(), retry.meta(), first.content(), rows)
        .isTrue();
  }

  private static void twiceAndCount(String tool) throws Exception {
    String order = UUID.randomUUID().toString();
    CallToolRequest call =
        new CallToolRequest(
            tool, Map.of("order_id", order, "idempotency_key", UUID.randomUUID().toString()));
    List<String> answers = new ArrayList<>();
    for (int attempt = 0; attempt < 2; attempt++) {
      try {
        CallToolResult r = CLIENT.get().callTool(call);
        answers.add(
            "result isError=" + r.isError() + " " + r.structuredContent() + " " + r.content());
      } catch (RuntimeException e) {
        answers.add("error " + e.getMessage());
      }
    }
    assertThat(rows(order)).as("charge rows in the database; answers %s", answers).isEqualTo(1);
  }

  private static int rows(String order) throws Exception {
    return ChargeTables.rows(TABLE, order);
  }
}
