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
 * Review R (of ba7f093f). Needs PostgreSQL at 127.0.0.1:5432 (database test, user postgres).
 *
 * <ol>
 *   <li>CallerTransaction checks at PLATFORM_BEFORE + 99, the gate claims at + 100: an application
 *       interceptor at + 99 (equal priorities run in an undefined order; ArC puts this one after
 *       CallerTransaction) begins a transaction after the check and before the claim. The gate
 *       stores "charged" when the method returns, the unit of work then rolls back (charge with
 *       it), and the caller's retry is replayed "charged" with no charge. The gate now checks for
 *       the caller's transaction itself, as it starts.
 *   <li>A retry outside {@code @Transactional}: the first attempt's transaction committed the
 *       charge, the last attempt returned an error result of its own. The return path reads only
 *       the last ending, the key is released, and the caller's retry charges again (the fix of
 *       ba7f093f covers a thrown failure only). It now fences.
 * </ol>
 */
class TransactionWindowReviewTest {
  static final String TABLE = ChargeTables.create("review-r-table");

  @RegisterExtension
  static final QuarkusUnitTest APP =
      ChargeTables.app(
          "review-r",
          TransactionWindowTools.class,
          TransactionOrderTools.ReceiptFailed.class,
          UnitOfWork.class,
          UnitOfWorkTransactions.class,
          RetryOutsideTransaction.class,
          RetryOutsideTransactionInterceptor.class,
          TransactionWindowReviewTest.class);

  private static final TestClient CLIENT = new TestClient();

  @AfterAll
  static void close() {
    CLIENT.close();
  }

  @Test
  void aChargeRolledBackByAUnitOfWorkBetweenTheCheckAndTheGateIsNotReplayedAsDone()
      throws Exception {
    String order = UUID.randomUUID().toString();
    List<String> answers = twice("chargeInUnitOfWork", order);
    int rows = ChargeTables.rows(TABLE, order);
    assertThat(answers.get(1).contains("charged " + order) && rows == 0)
        .as(
            "the retry is told %s while the database holds %s charge rows (first answer %s)",
            answers.get(1), rows, answers.get(0))
        .isFalse();
  }

  @Test
  void aChargeCommittedByAnEarlierAttemptIsNotMadeAgainAfterAnErrorResult() throws Exception {
    String order = UUID.randomUUID().toString();
    List<String> answers = twice("chargeRetriedThenDeclined", order);
    assertThat(ChargeTables.rows(TABLE, order))
        .as("charge rows; answers %s", answers)
        .isLessThanOrEqualTo(1);
  }

  private static List<String> twice(String tool, String order) {
    CallToolRequest call =
        new CallToolRequest(tool, Map.of("order_id", order, "idempotency_key", "k-" + order));
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
    return answers;
  }
}
