package dev.mcpgate.quarkus.deployment.review;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.mcp.Idempotent;
import dev.mcpgate.mcp.KeySource;
import io.quarkiverse.mcp.server.Tool;
import io.quarkiverse.mcp.server.ToolArg;
import io.quarkiverse.mcp.server.ToolResponse;
import io.quarkus.test.QuarkusUnitTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Review (medium-low): the build accepted a defaultValue on the key argument. A call without a key
 * was then not refused (idempotency_key_required) but gated under the shared default key: a second,
 * separate reminder to the same person (within the retention) was answered as a replay of the first
 * and never sent; one to another person was refused as a key conflict. The build now refuses a
 * default on the key argument (and on a natural-key argument), naming the tool, the method and the
 * argument.
 */
class DefaultKeyReviewTest {

  @RegisterExtension
  static final QuarkusUnitTest APP =
      new QuarkusUnitTest()
          .withApplicationRoot(jar -> jar.addClasses(DefaultKeyTools.class))
          .overrideConfigKey("quarkus.devservices.enabled", "false")
          .overrideConfigKey("mcpgate.store", "memory")
          .overrideConfigKey("mcpgate.tenant.constant", "review")
          .assertException(
              e ->
                  assertThat(e)
                      .isInstanceOf(IllegalStateException.class)
                      .hasMessageContaining("MCP Gate cannot gate these tools as declared")
                      .hasMessageContaining(
                          "tool remind (dev.mcpgate.quarkus.deployment.review.DefaultKeyReviewTest"
                              + "$DefaultKeyTools#remind): its key argument idempotency_key has a"
                              + " defaultValue (\"reminder\")")
                      .hasMessageContaining(
                          "tool stop_session (dev.mcpgate.quarkus.deployment.review"
                              + ".DefaultKeyReviewTest$DefaultKeyTools#stop): its natural key"
                              + " argument session_id has a defaultValue (\"current\")"));

  @Test
  void aCallWithoutAKeyIsNotGatedUnderADefaultKey() {
    // the assertion is the extension's: the build must fail with the messages above
  }

  /** Gated tools whose key has a default. */
  public static class DefaultKeyTools {
    @Tool(
        description = "Sends a reminder; the key has a default.",
        annotations = @Tool.Annotations(idempotentHint = true))
    @Idempotent
    ToolResponse remind(
        @ToolArg(name = "to") String to,
        @ToolArg(name = "idempotency_key", required = false, defaultValue = "reminder")
            String idempotencyKey) {
      return ToolResponse.success("reminded " + to);
    }

    @Tool(
        name = "stop_session",
        description = "Stops a session; the natural key has a default.",
        annotations = @Tool.Annotations(idempotentHint = true))
    @Idempotent(naturalKey = "session_id", keySources = KeySource.NATURAL)
    ToolResponse stop(
        @ToolArg(name = "session_id", required = false, defaultValue = "current")
            String sessionId) {
      return ToolResponse.success("stopped " + sessionId);
    }
  }
}
