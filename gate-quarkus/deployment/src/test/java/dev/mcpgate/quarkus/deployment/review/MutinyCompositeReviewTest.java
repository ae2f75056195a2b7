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
 * Review L. Mutiny's CompositeException (what {@code collectFailures()} and {@code
 * Multi...collectFailures} throw) keeps its first failure as its cause and every other one as a
 * SUPPRESSED exception, as Reactor's composite does with all of them. UnknownOutcomes reads the
 * suppressed errors of Reactor's composite only, by name: a timeout (Mutiny's own TimeoutException,
 * which the list names) that is not the first failure is never read, the key is released, and the
 * retry with the same key charges the courier again.
 */
class MutinyCompositeReviewTest {

  @RegisterExtension
  static final QuarkusUnitTest APP =
      new QuarkusUnitTest()
          .withApplicationRoot(
              jar ->
                  jar.addClasses(
                      MutinyCompositeTools.class, DownstreamTimeoutTools.class, TestClient.class))
          .overrideConfigKey("quarkus.devservices.enabled", "false")
          .overrideConfigKey("quarkus.http.test-port", "0")
          .overrideConfigKey("mcpgate.store", "memory")
          .overrideConfigKey("mcpgate.tenant.constant", "review-l");

  private static final TestClient CLIENT = new TestClient();

  @AfterAll
  static void close() {
    CLIENT.close();
  }

  @Test
  void aTimeoutAmongMutinysCollectedFailuresKeepsTheKeyFenced() throws Exception {
    String order = UUID.randomUUID().toString();
    CallToolRequest call =
        new CallToolRequest(
            "splitCharge",
            Map.of("order_id", order, "idempotency_key", UUID.randomUUID().toString()));
    List<String> answers = new ArrayList<>();
    for (int attempt = 0; attempt < 2; attempt++) {
      try {
        CallToolResult r = CLIENT.get().callTool(call);
        answers.add("isError=" + r.isError() + " " + r.structuredContent() + " " + r.content());
      } catch (RuntimeException e) {
        answers.add("error " + e.getMessage());
      }
    }
    Thread.sleep(DownstreamTimeoutTools.ANSWER_MS); // both charges have arrived by now
    assertThat(DownstreamTimeoutTools.charges(order))
        .as("courier charges at the provider; answers %s", answers)
        .isEqualTo(1);
  }
}
