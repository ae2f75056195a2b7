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
 * Review Q (of 3605f930). How the gate reads a gated tool's transaction when it is not simply the
 * method's one. Needs PostgreSQL at 127.0.0.1:5432 (database test, user postgres).
 *
 * <ol>
 *   <li>A retry interceptor outside {@code @Transactional} (Fault Tolerance's {@code @Retry} with
 *       {@code mp.fault.tolerance.interceptor.priority} below 200, or the application's own): each
 *       attempt has a transaction of its own, and {@code Call.ended} keeps only the LAST one's end.
 *       The first attempt's charge committed (checked exception), the second rolled back: the
 *       failure is read as ROLLED_BACK, the key freed, and the caller's retry charges again. The
 *       bug of Spring's review P (1), in Quarkus.
 *   <li>A gated tool called from Java inside an ungated tool's transaction (joined): its result is
 *       stored when it returns, before the outer transaction ends; the outer one rolls back (the
 *       charge with it), and its retry is told "charged" by the replay: the order is placed and
 *       never charged. Such a call is now refused before it runs.
 *   <li>A transaction timeout (the reaper rolls back during the method).
 *   <li>REQUIRES_NEW on the tool, {@code @Transactional} on the class: a checked exception after
 *       the commit fences.
 * </ol>
 */
class TransactionOrderReviewTest {
  static final String TABLE = ChargeTables.create("review-q-table");

  @RegisterExtension
  static final QuarkusUnitTest APP =
      ChargeTables.app(
          "review-q",
          TransactionOrderTools.class,
          TransactionOrderTools.ReceiptFailed.class,
          TransactionOrderTools.ClassTransactional.class,
          TransactionOrderTools.Orders.class,
          RetryOutsideTransaction.class,
          RetryOutsideTransactionInterceptor.class,
          TransactionOrderReviewTest.class);

  private static final TestClient CLIENT = new TestClient();

  @AfterAll
  static void close() {
    CLIENT.close();
  }

  @Test
  void aChargeCommittedByAnEarlierAttemptIsNotMadeAgain() throws Exception {
    String order = UUID.randomUUID().toString();
    List<String> answers = twice("chargeRetried", order, true);
    assertThat(rows(order)).as("charge rows; answers %s", answers).isEqualTo(1);
  }

  @Test
  void aChargeRolledBackWithTheCallersTransactionIsNotReplayedAsDone() throws Exception {
    String order = UUID.randomUUID().toString();
    List<String> answers = twice("placeOrder", order, false);
    int rows = rows(order);
    assertThat(answers.get(1).contains("order placed") && rows == 0)
        .as(
            "the retry is told %s while the database holds %s charge rows (first answer %s)",
            answers.get(1), rows, answers.get(0))
        .isFalse();
    assertThat(rows).as("charge rows; answers %s", answers).isLessThanOrEqualTo(1);
    assertThat(Runs.get("place:" + order))
        .as("the gated charge inside the caller's transaction is refused before it runs")
        .isZero();
  }

  @Test
  void aTimedOutTransactionLeavesNoChargeThatARetryMakesAgain() throws Exception {
    String order = UUID.randomUUID().toString();
    List<String> answers = twice("chargeSlow", order, true);
    int rows = rows(order);
    assertThat(rows).as("charge rows; answers %s", answers).isLessThanOrEqualTo(1);
  }

  @Test
  void aRequiresNewToolThatCommittedThenThrewIsFenced() throws Exception {
    String order = UUID.randomUUID().toString();
    List<String> answers = twice("chargeRequiresNew", order, true);
    assertThat(rows(order)).as("charge rows; answers %s", answers).isEqualTo(1);
  }

  @Test
  void aClassTransactionalToolThatCommittedThenThrewIsFenced() throws Exception {
    String order = UUID.randomUUID().toString();
    List<String> answers = twice("chargeClassTx", order, true);
    assertThat(rows(order)).as("charge rows; answers %s", answers).isEqualTo(1);
  }

  private static List<String> twice(String tool, String order, boolean keyed) {
    CallToolRequest call =
        new CallToolRequest(
            tool,
            keyed
                ? Map.of("order_id", order, "idempotency_key", "k-" + order)
                : Map.of("order_id", order));
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

  private static int rows(String order) throws Exception {
    return ChargeTables.rows(TABLE, order);
  }
}
