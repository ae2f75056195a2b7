package dev.mcpgate.examples.trial;

import static dev.mcpgate.examples.trial.ExampleProcess.call;
import static org.assertj.core.api.Assertions.assertThat;

import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * docs/examples.md: "Every tool answers a call whose tenant the server cannot tell with an isError
 * result of type tenant_unknown, never an exception (which a transport may turn into no response at
 * all)." Over {@code serve --http}, where the tenant is "context:" + the X-Tenant header.
 */
class TenantTrialTest {
  @TempDir Path tmp;

  /**
   * McpGateErrors: every refusal says, beside its type, "which of three truths holds and what a
   * retry does" ({@code executed}, {@code retry_with_same_key}); the library's own tenant_unknown
   * carries them. The example answers a call without X-Tenant with its own tenant_unknown (before
   * the gate), which has neither: a client that reads {@code executed} to decide whether the refund
   * may have gone out finds nothing.
   */
  @Test
  void aCallWithoutATenantIsToldItDidNotRunAndThatTheSameCallWillNotHelp() throws Exception {
    try (ExampleProcess server =
        ExampleProcess.serveHttp(
            tmp.resolve("run"), "--jdbc-url", "jdbc:h2:file:" + tmp.resolve("db"))) {
      CallToolResult r =
          server
              .client(null)
              .callTool(
                  call("refund_order", "order_id", "o", "amount_cents", 5, "idempotency_key", "k"));

      assertThat(r.isError()).isTrue();
      @SuppressWarnings("unchecked")
      Map<String, Object> error = (Map<String, Object>) ExampleProcess.structured(r).get("error");
      assertThat(error)
          .containsEntry("type", "tenant_unknown")
          .containsEntry("executed", "no")
          .containsEntry("retry_with_same_key", false);
    }
  }

  /**
   * An X-Tenant of 250 characters makes a stored tenant of 258 ("context:" + 250). The gated tools
   * refuse it as tenant_invalid (an error result); the two ungated writes, start_session and
   * publish_story, throw instead ("could not start session", a JSON-RPC internal error from the
   * VARCHAR(255) tenant column) and the client gets an exception, not a result that says nothing
   * ran.
   */
  @Test
  void aTenantTheServerCannotUseIsAnsweredWithAnErrorResultByEveryTool() throws Exception {
    try (ExampleProcess server =
        ExampleProcess.serveHttp(
            tmp.resolve("run"), "--jdbc-url", "jdbc:h2:file:" + tmp.resolve("db"))) {
      McpSyncClient client = server.client("t".repeat(250));
      List<CallToolRequest> calls =
          List.of(
              call("start_session", "session_id", "s-1", "started_at", "2025-06-01T13:00:00Z"),
              call("publish_story", "slug", "s", "title", "t", "body", "b"),
              call("report_reproduction", "story_slug", "s", "reporter", "ada"),
              call("refund_order", "order_id", "o", "amount_cents", 5, "idempotency_key", "k"));
      List<String> thrown = new ArrayList<>();
      for (CallToolRequest c : calls) {
        try {
          CallToolResult r = client.callTool(c);
          assertThat(r.isError()).as(c.name()).isTrue();
        } catch (RuntimeException e) {
          thrown.add(c.name() + ": " + e.getMessage());
        }
      }
      assertThat(thrown).as("tools that answered with an exception").isEmpty();
    }
  }
}
