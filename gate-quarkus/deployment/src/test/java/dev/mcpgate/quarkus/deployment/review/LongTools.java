package dev.mcpgate.quarkus.deployment.review;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.mcp.Idempotent;
import dev.mcpgate.quarkus.deployment.TestClient;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import io.quarkiverse.mcp.server.Tool;
import io.quarkiverse.mcp.server.ToolArg;
import io.quarkiverse.mcp.server.ToolResponse;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/** A gated tool that runs longer than its lease. */
public class LongTools {
  @Tool(
      description = "Exports a report; takes three leases' time.",
      annotations = @Tool.Annotations(idempotentHint = true))
  @Idempotent(lease = "PT2S", inFlightWait = "PT20S")
  ToolResponse export(
      @ToolArg(name = "report") String report,
      @ToolArg(name = "idempotency_key", required = false) String idempotencyKey)
      throws InterruptedException {
    int n = ReviewTools.ran(report);
    Thread.sleep(6000);
    return ToolResponse.success("exported " + report + " (run " + n + ")");
  }

  /**
   * Calls {@code export} (three leases long) and retries it two leases in: only renewals keep its
   * key, so the retry must not run it again.
   */
  static void aRunLongerThanItsLeaseRunsOnce() throws Exception {
    try (TestClient client = new TestClient()) {
      String report = UUID.randomUUID().toString();
      CallToolRequest export =
          new CallToolRequest(
              "export", Map.of("report", report, "idempotency_key", UUID.randomUUID().toString()));
      ExecutorService pool = Executors.newSingleThreadExecutor();
      try {
        Future<CallToolResult> first = pool.submit(() -> client.get().callTool(export));
        Thread.sleep(4000); // two leases in: only renewals keep the key
        CallToolResult retry = client.get().callTool(export);

        assertThat(ReviewTools.runs(report))
            .as("runs; first %s, retry %s", first.get(), retry)
            .isEqualTo(1);
      } finally {
        pool.shutdownNow();
      }
    }
  }
}
