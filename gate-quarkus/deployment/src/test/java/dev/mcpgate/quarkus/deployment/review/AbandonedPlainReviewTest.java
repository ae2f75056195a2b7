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
 * Review AA: the abandoned-transaction fix counts transactions only. A gated method that is not
 * {@code @Transactional}, still running on the time limiter's thread when the limiter answers its
 * fallback error, is read as "did not run": the key is freed, and the retry charges again while the
 * first run charges too. Fixed: {@code TransactionEnd} counts each attempt while it runs, and the
 * gate fences the key while one does. Needs PostgreSQL at 127.0.0.1:5432.
 */
class AbandonedPlainReviewTest {
  static final String TABLE = ChargeTables.create("review-aa-table");

  @RegisterExtension
  static final QuarkusUnitTest APP =
      ChargeTables.app(
          "review-aa",
          AbandonedPlainTools.class,
          AbandoningTimeout.class,
          AbandoningTimeoutInterceptor.class,
          AbandonedPlainReviewTest.class);

  private static final TestClient CLIENT = new TestClient();

  @AfterAll
  static void close() {
    CLIENT.close();
  }

  @Test
  void aMethodStillRunningWhenTheGateReadsIsNotReadAsNotRun() throws Exception {
    String order = UUID.randomUUID().toString();
    CallToolRequest call =
        new CallToolRequest(
            "chargePlainSlowly", Map.of("order_id", order, "idempotency_key", "k-" + order));
    List<String> answers = new ArrayList<>();
    for (int attempt = 0; attempt < 2; attempt++) {
      try {
        CallToolResult r = CLIENT.get().callTool(call);
        answers.add("isError=" + r.isError() + " " + r.structuredContent() + " " + r.content());
      } catch (RuntimeException e) {
        answers.add("error " + e.getMessage());
      }
    }
    Thread.sleep(1500); // both abandoned runs have finished
    assertThat(ChargeTables.rows(TABLE, order)).as("charge rows; answers %s", answers).isEqualTo(1);
  }
}
