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
 * Review O (of 23b90e17). A gated {@code @Transactional} tool whose own transaction ends
 * ROLLED_BACK after it returned is answered "nothing it wrote was kept ... a retry runs it again"
 * and its key is freed. But the tool charged through a REQUIRES_NEW bean, committed on its own: the
 * retry charges again (before 23b90e17 the answer was stored and replayed: one charge). A tool that
 * rolls back and answers an error of its own has said it failed: its key is freed. Needs PostgreSQL
 * at 127.0.0.1:5432 (database test, user postgres).
 */
class RequiresNewThenRolledBackReviewTest {
  static final String TABLE = ChargeTables.create("review-o-table");

  @RegisterExtension
  static final QuarkusUnitTest APP =
      ChargeTables.app(
          "review-o",
          RequiresNewThenRolledBackTools.class,
          RequiresNewThenRolledBackTools.Ledger.class,
          RequiresNewThenRolledBackReviewTest.class);

  private static final TestClient CLIENT = new TestClient();

  @AfterAll
  static void close() {
    CLIENT.close();
  }

  @Test
  void aRequiresNewChargeIsNotMadeAgainAfterTheToolRolledBack() throws Exception {
    String order = UUID.randomUUID().toString();
    CallToolRequest call =
        new CallToolRequest(
            "chargeViaLedger",
            Map.of("order_id", order, "idempotency_key", UUID.randomUUID().toString()));
    List<String> answers = new ArrayList<>();
    for (int attempt = 0; attempt < 2; attempt++) {
      try {
        CallToolResult r = CLIENT.get().callTool(call);
        answers.add("result isError=" + r.isError() + " " + r.content());
      } catch (RuntimeException e) {
        answers.add("error " + e.getMessage());
      }
    }
    assertThat(rows(order)).as("charge rows in the database; answers %s", answers).isEqualTo(1);
  }

  @Test
  void aRolledBackToolAnsweringItsOwnErrorIsRunAgain() {
    String order = UUID.randomUUID().toString();
    CallToolRequest call =
        new CallToolRequest(
            "declineRolledBack",
            Map.of("order_id", order, "idempotency_key", UUID.randomUUID().toString()));
    List<String> answers = new ArrayList<>();
    for (int attempt = 0; attempt < 2; attempt++) {
      CallToolResult r = CLIENT.get().callTool(call);
      answers.add("result isError=" + r.isError() + " " + r.content());
    }
    assertThat(Runs.get(order)).as("runs; answers %s", answers).isEqualTo(2);
    assertThat(answers.get(1)).contains("declined " + order).doesNotContain("idempotency_");
  }

  private static int rows(String order) throws Exception {
    return ChargeTables.rows(TABLE, order);
  }
}
