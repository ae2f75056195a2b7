package dev.mcpgate.quarkus.deployment.review;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.quarkus.deployment.TestClient;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * The check that {@link LongTools#export} runs once when retried inside its run; a test that uses
 * it adds this class and {@link TestClient} to its application.
 */
final class LongExport {
  private LongExport() {}

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
