package dev.mcpgate.quarkus.deployment.review;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.quarkus.deployment.TestClient;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import io.quarkus.test.QuarkusUnitTest;
import java.util.Arrays;
import java.util.Map;
import java.util.logging.Level;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Review (low): a gated method called from Java on an event-loop thread (an ungated reactive tool
 * calls it) ran the gate there, whose store calls and in-flight wait block the event loop. It is
 * refused before anything runs, naming the tool; called as a tool, on a worker, it runs.
 */
class EventLoopCallReviewTest {

  @RegisterExtension
  static final QuarkusUnitTest APP =
      new QuarkusUnitTest()
          .withApplicationRoot(jar -> jar.addClasses(EventLoopTools.class, TestClient.class))
          .overrideConfigKey("quarkus.devservices.enabled", "false")
          .overrideConfigKey("quarkus.http.test-port", "0")
          .overrideConfigKey("mcpgate.store", "memory")
          .overrideConfigKey("mcpgate.tenant.constant", "review")
          .setLogRecordPredicate(r -> r.getLevel().intValue() >= Level.SEVERE.intValue())
          .assertLogRecords(
              records ->
                  assertThat(records)
                      .as("the server's log says why the reactive tool failed")
                      .anySatisfy(
                          r ->
                              assertThat(
                                      r.getMessage()
                                          + Arrays.toString(r.getParameters())
                                          + r.getThrown())
                                  .contains(
                                      "the gated tool probe was called on an event-loop thread")
                                  .contains("nothing ran")));

  private static final TestClient CLIENT = new TestClient();

  @AfterAll
  static void close() {
    CLIENT.close();
  }

  @Test
  void aGatedMethodCalledOnTheEventLoopIsRefusedAndDoesNotRun() {
    int before = EventLoopTools.PROBES.get();
    Object answer;
    try {
      answer = CLIENT.get().callTool(new CallToolRequest("quickRefund", Map.of("order_id", "o1")));
    } catch (RuntimeException e) {
      answer = e;
    }

    assertThat(EventLoopTools.PROBES.get()).as("answer: %s", answer).isEqualTo(before);
    assertThat(answer.toString()).contains("Internal error"); // the server logs the reason

    CallToolResult asATool =
        CLIENT
            .get()
            .callTool(
                new CallToolRequest("probe", Map.of("order_id", "o2", "idempotency_key", "k2")));
    assertThat(asATool.isError()).as("%s", asATool).isFalse();
    assertThat(EventLoopTools.PROBES.get()).isEqualTo(before + 1);
  }
}
