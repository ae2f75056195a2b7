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
 *
 * <p>Since fixed: a natural key that names no argument of the tool stops the startup (the adapter
 * refuses it when the starter wraps the tool). The other two stay warnings, as spring-boot.md says
 * and adapters.md now says too: a read-only tool has nothing to gate, and a write tool left ungated
 * by a misnamed {@code @Idempotent} stops the startup under {@code
 * mcpgate.require-gated-writes=true}.
 */
class UngatableToolStartsTheServerTest {

  /** A natural key with a typo: the argument is sessionId. */
  public static class NaturalKeyTypo {
    @McpTool(name = "stop_session", description = "Stop a session")
    @Idempotent(keySources = KeySource.NATURAL, naturalKey = "session_id")
    public String stop(@McpToolParam(description = "the session") String sessionId) {
      return "stopped " + sessionId;
    }
  }

  @Test
  void aNaturalKeyThatNamesNoArgumentStopsTheStartup() {
    assertThatThrownBy(() -> TrialServer.server(NaturalKeyTypo.class).run().close())
        .as("adapters.md: a gated tool that cannot be gated as declared fails the startup")
        .hasStackTraceContaining("session_id");
  }
}
