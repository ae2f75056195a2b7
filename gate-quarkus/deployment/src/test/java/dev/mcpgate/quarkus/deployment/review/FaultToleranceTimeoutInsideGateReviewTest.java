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
 * The gate runs at PLATFORM_BEFORE + 100, outside MicroProfile Fault Tolerance (PLATFORM_AFTER +
 * 10). A synchronous {@code @Timeout} on a gated tool interrupts the method and, once it returns
 * (its effect done), clears the interrupt and throws a fresh TimeoutException with no cause. The
 * gate saw an ordinary failure, freed the key, and a retry with the same key charged again (found
 * in review). The extension now takes that exception as an unknown outcome: the key stays fenced.
 * (quarkus-smallrye-fault-tolerance for this Quarkus is not served here: {@link
 * FaultToleranceLikeTimeoutInterceptor} does what its synchronous timeout does, with the real
 * exception type.)
 */
class FaultToleranceTimeoutInsideGateReviewTest {

  @RegisterExtension
  static final QuarkusUnitTest APP =
      new QuarkusUnitTest()
          .withApplicationRoot(
              jar ->
                  jar.addClasses(
                      FaultToleranceLikeTimeout.class,
                      FaultToleranceLikeTimeoutInterceptor.class,
                      SlowProviderTools.class,
                      TestClient.class))
          .overrideConfigKey("quarkus.devservices.enabled", "false")
          .overrideConfigKey("quarkus.http.test-port", "0")
          .overrideConfigKey("mcpgate.store", "memory")
          .overrideConfigKey("mcpgate.tenant.constant", "review-ft");

  private static final TestClient CLIENT = new TestClient();

  @AfterAll
  static void close() {
    CLIENT.close();
  }

  @Test
  void aTimedOutChargeIsNotRunAgainByItsRetry() {
    String order = UUID.randomUUID().toString();
    CallToolRequest call =
        new CallToolRequest(
            "charge", Map.of("order_id", order, "idempotency_key", UUID.randomUUID().toString()));
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
    assertThat(SlowProviderTools.charges(order))
        .as("charges at the provider; answers %s", answers)
        .isEqualTo(1);
  }
}
