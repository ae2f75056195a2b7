package dev.mcpgate.spring.trial;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.mcpgate.mcp.Idempotent;
import dev.mcpgate.mcp.KeySource;
import org.junit.jupiter.api.Test;
import org.springframework.ai.mcp.annotation.McpTool;
import org.springframework.ai.mcp.annotation.McpToolParam;

/**
 * docs/adapters.md, row "a gated tool that cannot be gated as declared": the Spring Boot starter,
 * "startup fails" (the Quarkus extension fails its build for the same three declarations).
 *
 * <p>What happens: the server starts each time. An {@code @Idempotent} tool marked {@code
 * readOnlyHint=true} is passed through ungated with a WARN; a natural key that names no argument of
 * the tool is taken as it is (every call is then refused {@code idempotency_key_required}); an
 * {@code @Idempotent} method whose tool no specification has is a WARN (docs/spring-boot.md says
 * "logged", contradicting adapters.md).
 */
class UngatableToolStartsTheServerTest {

  /** A read tool marked @Idempotent. */
  public static class ReadOnlyGated {
    @McpTool(
        name = "get_order",
        description = "Read an order",
        annotations = @McpTool.McpAnnotations(readOnlyHint = true))
    @Idempotent
    public String getOrder(@McpToolParam(description = "the order") String orderId) {
      return "order " + orderId;
    }
  }

  /** A natural key with a typo: the argument is sessionId. */
  public static class NaturalKeyTypo {
    @McpTool(name = "stop_session", description = "Stop a session")
    @Idempotent(keySources = KeySource.NATURAL, naturalKey = "session_id")
    public String stop(@McpToolParam(description = "the session") String sessionId) {
      return "stopped " + sessionId;
    }
  }

  /** An @Idempotent method that names a tool the server does not have. */
  public static class NoSuchTool {
    @McpTool(name = "refund_order", description = "Refund an order")
    @Idempotent(tool = "refund_orders")
    public String refund(@McpToolParam(description = "the order") String orderId) {
      return "refunded " + orderId;
    }
  }

  @Test
  void anIdempotentReadOnlyToolStopsTheStartup() {
    assertThatThrownBy(() -> TrialServer.server(ReadOnlyGated.class).run().close())
        .as("adapters.md: a gated tool that cannot be gated as declared fails the startup")
        .hasStackTraceContaining("get_order");
  }

  @Test
  void aNaturalKeyThatNamesNoArgumentStopsTheStartup() {
    assertThatThrownBy(() -> TrialServer.server(NaturalKeyTypo.class).run().close())
        .as("adapters.md: a gated tool that cannot be gated as declared fails the startup")
        .hasStackTraceContaining("session_id");
  }

  @Test
  void anIdempotentMethodWhoseToolIsNotThereStopsTheStartup() {
    assertThatThrownBy(() -> TrialServer.server(NoSuchTool.class).run().close())
        .as("adapters.md: a gated tool that cannot be gated as declared fails the startup")
        .hasStackTraceContaining("refund_orders");
  }
}
