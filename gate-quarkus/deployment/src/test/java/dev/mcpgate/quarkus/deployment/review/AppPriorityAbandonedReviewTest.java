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
 * Review AB: the abandoned-attempt fix counts attempts in {@code TransactionEnd} at priority
 * PLATFORM_BEFORE + 201, which is not innermost: an application interceptor at its usual priority
 * (APPLICATION, 2000) runs inside it. Such a time limiter that gives up and answers a fallback
 * error returns through TransactionEnd on the gate's thread, so the attempt counts as ended while
 * the method still runs on the limiter's thread: the key is freed and the retry charges again.
 * Fixed: {@code AttemptWatch} counts attempts innermost (PLATFORM_AFTER + 1000). Needs PostgreSQL
 * at 127.0.0.1:5432.
 */
class AppPriorityAbandonedReviewTest {
  static final String TABLE = ChargeTables.create("review-ab-table");

  @RegisterExtension
  static final QuarkusUnitTest APP =
      ChargeTables.app(
          "review-ab",
          AppPriorityTools.class,
          AppPriorityTimeout.class,
          AppPriorityTimeoutInterceptor.class,
          AppPriorityAbandonedReviewTest.class);

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
            "chargeAppPriority", Map.of("order_id", order, "idempotency_key", "k-" + order));
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
