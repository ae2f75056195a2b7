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
 * Review K. A gated Quarkus tool charges at a real HTTP provider, which takes the charge and
 * answers late; the tool's client gives up after its deadline. The effect happened, so the key must
 * stay fenced (outcome unknown) and a retry with the same key must not charge again. The gate's
 * walk counts an InterruptedIOException (SocketTimeoutException), the interrupt family and Fault
 * Tolerance's TimeoutException, but not the timeouts that the clients of a Quarkus application
 * throw: Mutiny's {@code await().atMost} (io.smallrye.mutiny.TimeoutException), Vert.x's HTTP
 * client, under the Quarkus REST client (NoStackTraceTimeoutException, a
 * java.util.concurrent.TimeoutException), the JDK's HttpClient (HttpTimeoutException, an
 * IOException). And a Quarkus application cannot name them: the extension gives it no {@code
 * outcomeUnknownWhen}.
 */
class DownstreamTimeoutReviewTest {

  @RegisterExtension
  static final QuarkusUnitTest APP =
      new QuarkusUnitTest()
          .withApplicationRoot(
              jar -> jar.addClasses(DownstreamTimeoutTools.class, TestClient.class))
          .overrideConfigKey("quarkus.devservices.enabled", "false")
          .overrideConfigKey("quarkus.http.test-port", "0")
          .overrideConfigKey("mcpgate.store", "memory")
          .overrideConfigKey("mcpgate.tenant.constant", "review-k");

  private static final TestClient CLIENT = new TestClient();

  @AfterAll
  static void close() {
    CLIENT.close();
  }

  private static void twice(String tool, String order) {
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
    assertThat(DownstreamTimeoutTools.charges(order))
        .as("%s: charges at the provider; answers %s", tool, answers)
        .isEqualTo(1);
  }

  @Test
  void jdkHttpClientRequestTimeoutKeepsTheKeyFenced() {
    twice("chargeJdk", UUID.randomUUID().toString());
  }

  @Test
  void mutinyAwaitAtMostKeepsTheKeyFenced() {
    twice("chargeMutiny", UUID.randomUUID().toString());
  }

  @Test
  void vertxHttpClientTimeoutKeepsTheKeyFenced() {
    twice("chargeVertx", UUID.randomUUID().toString());
  }

  @Test
  void toolCallExceptionAroundAReadTimeoutKeepsTheKeyFenced() {
    twice("chargeWrapped", UUID.randomUUID().toString());
  }

  @Test
  void outcomeUnknownKeepsTheKeyFenced() {
    twice("chargeUnknown", UUID.randomUUID().toString());
  }
}
