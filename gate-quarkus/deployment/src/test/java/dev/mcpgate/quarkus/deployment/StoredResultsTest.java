package dev.mcpgate.quarkus.deployment;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.mcp.Idempotent;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import io.quarkiverse.mcp.server.BlobResourceContents;
import io.quarkiverse.mcp.server.EmbeddedResource;
import io.quarkiverse.mcp.server.TextContent;
import io.quarkiverse.mcp.server.TextResourceContents;
import io.quarkiverse.mcp.server.Tool;
import io.quarkiverse.mcp.server.ToolArg;
import io.quarkiverse.mcp.server.ToolResponse;
import io.quarkus.test.QuarkusUnitTest;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * What a gated tool's result becomes: embedded resources are stored and replayed; a result the
 * extension cannot store, after the method ran, keeps its key fenced (outcome unknown) instead of
 * freeing it for a retry that would run the effect again.
 */
class StoredResultsTest {

  @RegisterExtension
  static final QuarkusUnitTest APP =
      new QuarkusUnitTest()
          .withApplicationRoot(jar -> jar.addClasses(ResultTools.class, TestClient.class))
          .overrideConfigKey("quarkus.devservices.enabled", "false")
          .overrideConfigKey("quarkus.http.test-port", "0")
          .overrideConfigKey("mcpgate.store", "memory")
          .overrideConfigKey("mcpgate.tenant.constant", "results");

  /** Tools whose results are hard to store; each counts its runs per id. */
  public static class ResultTools {
    static final Map<String, AtomicInteger> RUNS = new ConcurrentHashMap<>();

    static int runs(String id) {
      AtomicInteger n = RUNS.get(id);
      return n == null ? 0 : n.get();
    }

    private static int ran(String id) {
      return RUNS.computeIfAbsent(id, k -> new AtomicInteger()).incrementAndGet();
    }

    /** Structured content that no JSON mapper can write: its getter throws. */
    public static class Unwritable {
      public String getValue() {
        throw new IllegalStateException("not writable");
      }
    }

    @Tool(
        description = "Attaches a document.",
        annotations = @Tool.Annotations(idempotentHint = true))
    @Idempotent
    ToolResponse attach(
        @ToolArg(name = "id") String id,
        @ToolArg(name = "idempotency_key", required = false) String key) {
      int n = ran(id);
      return ToolResponse.success(
          List.of(
              new TextContent("attached " + id + " (run " + n + ")"),
              new EmbeddedResource(
                  new TextResourceContents("doc://" + id, "text of " + id, "text/plain")),
              new EmbeddedResource(
                  BlobResourceContents.create("blob://" + id, new byte[] {1, 2, 3}))));
    }

    @Tool(
        description = "Acts, then returns null.",
        annotations = @Tool.Annotations(idempotentHint = true))
    @Idempotent
    ToolResponse returnsNull(
        @ToolArg(name = "id") String id,
        @ToolArg(name = "idempotency_key", required = false) String key) {
      ran(id);
      return null;
    }

    @Tool(
        description = "Acts, then returns structured content the mapper cannot convert.",
        annotations = @Tool.Annotations(idempotentHint = true))
    @Idempotent
    ToolResponse unwritable(
        @ToolArg(name = "id") String id,
        @ToolArg(name = "idempotency_key", required = false) String key) {
      ran(id);
      return new ToolResponse(
          false, List.of(new TextContent("done " + id)), new Unwritable(), null);
    }
  }

  private static final TestClient CLIENT = new TestClient();

  static McpSyncClient client() {
    return CLIENT.get();
  }

  @AfterAll
  static void close() {
    CLIENT.close();
  }

  private static Object answer(String tool, String id, String key) {
    try {
      return client().callTool(new CallToolRequest(tool, Map.of("id", id, "idempotency_key", key)));
    } catch (RuntimeException e) {
      return e;
    }
  }

  @SuppressWarnings("unchecked")
  private static Object errorType(Object answer) {
    assertThat(answer).isInstanceOf(CallToolResult.class);
    CallToolResult result = (CallToolResult) answer;
    assertThat(result.isError()).as("%s", result).isTrue();
    return ((Map<String, Object>) ((Map<String, Object>) result.structuredContent()).get("error"))
        .get("type");
  }

  @Test
  void embeddedResourcesAreStoredAndReplayed() {
    String id = UUID.randomUUID().toString();
    String key = UUID.randomUUID().toString();
    CallToolResult first = (CallToolResult) answer("attach", id, key);
    CallToolResult retry = (CallToolResult) answer("attach", id, key);

    assertThat(ResultTools.runs(id)).isEqualTo(1);
    assertThat(retry.meta()).containsEntry("dev.mcpgate/replayed", true);
    assertThat(retry.content()).hasSize(3).isEqualTo(first.content());
    McpSchema.EmbeddedResource text = (McpSchema.EmbeddedResource) retry.content().get(1);
    assertThat(text.resource())
        .isEqualTo(
            new McpSchema.TextResourceContents("doc://" + id, "text/plain", "text of " + id));
    McpSchema.EmbeddedResource blob = (McpSchema.EmbeddedResource) retry.content().get(2);
    assertThat(((McpSchema.BlobResourceContents) blob.resource()).blob()).isEqualTo("AQID");
  }

  @Test
  void aNullResultKeepsTheKeyFencedAndTheRetryDoesNotRun() {
    String id = UUID.randomUUID().toString();
    String key = UUID.randomUUID().toString();
    Object first = answer("returnsNull", id, key);
    Object retry = answer("returnsNull", id, key);

    assertThat(ResultTools.runs(id)).as("first: %s; retry: %s", first, retry).isEqualTo(1);
    assertThat(errorType(first)).isEqualTo("idempotency_outcome_unknown");
    assertThat(errorType(retry)).isEqualTo("idempotency_outcome_unknown");
  }

  @Test
  void structuredContentTheMapperCannotConvertKeepsTheKeyFenced() {
    String id = UUID.randomUUID().toString();
    String key = UUID.randomUUID().toString();
    Object first = answer("unwritable", id, key);
    Object retry = answer("unwritable", id, key);

    assertThat(ResultTools.runs(id)).as("first: %s; retry: %s", first, retry).isEqualTo(1);
    assertThat(errorType(first)).isEqualTo("idempotency_outcome_unknown");
    assertThat(errorType(retry)).isEqualTo("idempotency_outcome_unknown");
  }
}
