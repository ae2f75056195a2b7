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
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Review N (passes: sound): each way a gated tool ends, on a worker and a virtual thread, retried
 * once.
 */
class ToolEndStatesTest {
  @RegisterExtension
  static final QuarkusUnitTest APP =
      new QuarkusUnitTest()
          .withApplicationRoot(
              jar -> jar.addClasses(ToolEndStatesTools.class, Runs.class, TestClient.class))
          .overrideConfigKey("quarkus.devservices.enabled", "false")
          .overrideConfigKey("quarkus.http.test-port", "0")
          .overrideConfigKey("mcpgate.store", "memory")
          .overrideConfigKey("mcpgate.tenant.constant", "review-n-matrix");

  private static final TestClient CLIENT = new TestClient();

  @AfterAll
  static void close() {
    CLIENT.close();
  }

  @ParameterizedTest
  @CsvSource({
    "chargeWorker, returns, 1",
    "chargeWorker, plain, 2",
    "chargeWorker, unknown, 1",
    "chargeWorker, socket, 1",
    "chargeWorker, timeout, 1",
    "chargeVirtual, returns, 1",
    "chargeVirtual, plain, 2",
    "chargeVirtual, unknown, 1",
    "chargeVirtual, socket, 1",
    "chargeVirtual, timeout, 1"
  })
  void retried(String tool, String how, int expectedRuns) {
    String order = UUID.randomUUID().toString();
    CallToolRequest call =
        new CallToolRequest(
            tool,
            Map.of("order_id", order, "how", how, "idempotency_key", UUID.randomUUID().toString()));
    List<String> answers = new ArrayList<>();
    for (int attempt = 0; attempt < 2; attempt++) {
      try {
        CallToolResult r = CLIENT.get().callTool(call);
        answers.add(
            "result isError="
                + r.isError()
                + " "
                + r.structuredContent()
                + " "
                + r.content()
                + " meta "
                + r.meta());
      } catch (RuntimeException e) {
        answers.add("error " + e.getMessage());
      }
    }
    System.out.println("REVIEW-N " + tool + " " + how + " -> " + answers);
    assertThat(ToolEndStatesTools.runs(order))
        .as("runs; answers %s", answers)
        .isEqualTo(expectedRuns);
    if (expectedRuns == 1 && !how.equals("returns")) {
      assertThat(answers.get(1)).contains("idempotency_outcome_unknown");
    }
  }
}
