package dev.mcpgate.testkit.trial;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.mcp.McpHarness;
import dev.mcpgate.testkit.RetryCheck;
import io.modelcontextprotocol.server.McpServerFeatures.SyncToolSpecification;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;
import org.opentest4j.AssertionFailedError;

/**
 * docs/testkit.md: "A probe is any Supplier&lt;?&gt; compared with equals: a row count, the rows
 * themselves, a list of mails. For declared-safe tools (a replace by slug), probe the record". A
 * probe that returns the live collection (the store's own map, as {@code () -> stories} reads
 * naturally) is read into the before and after states as one and the same object, so it never
 * differs: the kit fails a declared-safe replace, that is safe, saying its probe does "not watch
 * this tool's effect", although the probe sees every write. Nothing in the doc asks for a copy.
 */
class LiveProbeTrialTest {

  @Test
  void aDeclaredSafeReplaceProbedThroughItsLiveMapPassesTheRetryCheck() {
    Map<String, String> stories = new ConcurrentHashMap<>();
    SyncToolSpecification publish =
        new SyncToolSpecification(
            TrialServer.tool(
                "publish_story",
                Map.of("slug", Map.of("type", "string"), "text", Map.of("type", "string")),
                true),
            (ex, req) -> {
              stories.put(
                  (String) req.arguments().get("slug"), (String) req.arguments().get("text"));
              return CallToolResult.builder().addTextContent("published").build();
            });
    try (McpHarness harness = McpHarness.stdio(List.of(publish))) {
      try {
        RetryCheck.of(harness.client(null))
            .probe("stories", () -> stories)
            .assertSafeToRetry(
                new CallToolRequest("publish_story", Map.of("slug", "intro", "text", "hello")));
      } catch (AssertionFailedError e) {
        throw new AssertionError(
            "the kit failed a safe replace whose probe saw the write (stories now "
                + stories
                + "), saying: "
                + e.getMessage(),
            e);
      }
      assertThat(stories).containsExactly(Map.entry("intro", "hello"));
    }
  }
}
