package dev.mcpgate.testkit.trial;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.mcp.McpHarness;
import dev.mcpgate.testkit.RetryCheck;
import dev.mcpgate.testkit.ToolSurvey;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.server.McpServerFeatures.SyncToolSpecification;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;
import org.opentest4j.AssertionFailedError;

/**
 * The design (and ToolSurvey's Javadoc) name two write tools that are safe by construction and may
 * stay ungated, declared with idempotentHint=true: "a replace keyed by an argument the caller
 * already has, or a delete that fails the second time", and "the retry assertions are how that
 * declaration gets verified" ("verify such a declaration with RetryCheck"). A delete that fails the
 * second time answers the retry differently by construction, so RetryCheck fails it as "the retry
 * returned a different result than the first call: it ran again", though the effect happened once
 * and the probe proves it.
 */
class DeclaredSafeDeleteTrialTest {

  @Test
  void aDeleteThatFailsTheSecondTimeCanBeVerifiedWithRetryCheck() {
    Set<String> notes = ConcurrentHashMap.newKeySet();
    notes.add("n-1");
    notes.add("n-2");
    SyncToolSpecification delete =
        new SyncToolSpecification(
            TrialServer.tool("delete_note", Map.of("note_id", Map.of("type", "string")), true),
            (ex, req) -> {
              String id = (String) req.arguments().get("note_id");
              if (!notes.remove(id)) {
                return CallToolResult.builder()
                    .addTextContent("no note " + id)
                    .isError(true)
                    .build();
              }
              return CallToolResult.builder().addTextContent("deleted " + id).build();
            });
    try (McpHarness harness = McpHarness.stdio(List.of(delete))) {
      McpSyncClient client = harness.client(null);
      assertThat(ToolSurvey.of(client).declaredSafe())
          .extracting(ToolSurvey.Entry::tool)
          .containsExactly("delete_note");
      try {
        RetryCheck.of(client)
            .probe("notes", notes::size)
            .expectFirstCallChange("notes", -1)
            .assertSafeToRetry(new CallToolRequest("delete_note", Map.of("note_id", "n-1")));
      } catch (AssertionFailedError e) {
        throw new AssertionError(
            "the kit failed a delete that took effect once (notes left: "
                + notes
                + "), saying: "
                + e.getMessage(),
            e);
      }
    }
  }
}
