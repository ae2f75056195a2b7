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
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Review Y (of 62a9f1c9). Needs PostgreSQL at 127.0.0.1:5432 (database test, user postgres).
 *
 * <ol>
 *   <li>A REQUIRES_NEW tool calling itself through its proxy (Spring's RecursiveToolRolledBack):
 *       the inner, ungated invocation's rolled-back transaction must not be read as the outer's.
 *       Holds.
 *   <li>Fixed: a transaction still open when the gate reads the method's end (an application
 *       interceptor between the gate and {@code @Transactional} gave up waiting on it and answered
 *       a fallback error, or threw): the gate read "none kept" ({@code TransactionEnds.returned}
 *       and {@code threw} asked only how ended transactions ended), freed the key, the transaction
 *       committed afterwards, and the retry charged again. Now a transaction begun and not ended
 *       fences the key; an attempt the interceptor's thread begins after the gated call answered
 *       ({@code chargeLate}) is refused, for it would run outside the call's claim.
 * </ol>
 */
class TransactionReadingReviewTest {
  static final String TABLE = ChargeTables.create("review-y-table");

  @RegisterExtension
  static final QuarkusUnitTest APP =
      ChargeTables.app(
          "review-y",
          TransactionReadingTools.class,
          AbandoningTimeout.class,
          AbandoningTimeoutInterceptor.class,
          TransactionReadingReviewTest.class);

  private static final TestClient CLIENT = new TestClient();

  @AfterAll
  static void close() {
    CLIENT.close();
  }

  @Test
  void anInnerSelfCallsRollbackIsNotReadAsTheOuterTransactions() throws Exception {
    String order = UUID.randomUUID().toString();
    List<String> answers = twice("chargeCallingItself", order, 0);
    assertThat(ChargeTables.rows(TABLE, order)).as("rows; answers %s", answers).isEqualTo(1);
    assertThat(answers.get(0)).as("answers %s", answers).contains("charged " + order);
    assertThat(answers.get(1)).as("answers %s", answers).contains("charged " + order);
  }

  @Test
  void anAttemptBegunAfterTheCallAnsweredDoesNotRun() throws Exception {
    String order = UUID.randomUUID().toString();
    List<String> answers = twice("chargeLate", order, 0);
    Thread.sleep(1500); // both late attempts have begun
    assertThat(ChargeTables.rows(TABLE, order)).as("charge rows; answers %s", answers).isEqualTo(0);
  }

  @ParameterizedTest
  @ValueSource(strings = {"chargeSlowly", "chargeSlowlyThrowing"})
  void aTransactionStillOpenWhenTheGateReadsIsNotReadAsNoneKept(String tool) throws Exception {
    String order = UUID.randomUUID().toString();
    List<String> answers = twice(tool, order, 1500);
    Thread.sleep(1500);
    assertThat(ChargeTables.rows(TABLE, order)).as("charge rows; answers %s", answers).isEqualTo(1);
    assertThat(answers.get(1)).as("answers %s", answers).contains("idempotency_outcome_unknown");
  }

  private static List<String> twice(String tool, String order, long pauseMs)
      throws InterruptedException {
    CallToolRequest call =
        new CallToolRequest(tool, Map.of("order_id", order, "idempotency_key", "k-" + order));
    List<String> answers = new ArrayList<>();
    for (int attempt = 0; attempt < 2; attempt++) {
      if (attempt > 0) {
        Thread.sleep(pauseMs);
      }
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
