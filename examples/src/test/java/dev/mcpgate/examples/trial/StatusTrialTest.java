package dev.mcpgate.examples.trial;

import static dev.mcpgate.examples.trial.ExampleProcess.call;
import static dev.mcpgate.examples.trial.ExampleProcess.structured;
import static dev.mcpgate.examples.trial.ExampleProcess.text;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariDataSource;
import dev.mcpgate.core.IdempotencyGate;
import dev.mcpgate.core.OutcomeUnknownException;
import dev.mcpgate.core.ResultMapper;
import dev.mcpgate.core.ToolCall;
import dev.mcpgate.jdbc.JdbcIdempotencyStore;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * docs/examples.md, "Settling an unknown outcome (operators)": {@code status resolve} stores the
 * result that retries then get "marked as a replay"; it "changes nothing, and exits 1, when the key
 * has no unknown outcome".
 */
class StatusTrialTest {
  @TempDir Path tmp;

  /** Leaves refund_order's key k-9f2 of tenant context:acme with an unknown outcome. */
  private static void unknownRefund(String url) {
    try (HikariDataSource ds = new HikariDataSource()) {
      ds.setJdbcUrl(url);
      JdbcIdempotencyStore store =
          JdbcIdempotencyStore.builder(ds).createSchemaIfMissing(true).build();
      try (IdempotencyGate gate = IdempotencyGate.builder(store).build()) {
        ToolCall refund =
            ToolCall.of(
                "context:acme",
                "refund_order",
                "k-9f2",
                Map.of("order_id", "ord_9f2", "amount_cents", 500));
        assertThatThrownBy(
                () ->
                    gate.execute(
                            refund,
                            ResultMapper.bytes(),
                            ctx -> {
                              throw new OutcomeUnknownException("the provider timed out");
                            })
                        .orThrow())
            .isInstanceOf(OutcomeUnknownException.class);
      }
    }
  }

  /**
   * The doc's two steps, end to end: the operator settles the key as happened with the doc's own
   * JSON, then the client's retry over MCP gets that result, marked as a replay, and nothing runs.
   */
  @Test
  void aKeySettledAsHappenedIsReplayedToTheMcpClientsRetry() throws Exception {
    String url = "jdbc:h2:file:" + tmp.resolve("db");
    unknownRefund(url);

    ExampleProcess.Run settle =
        ExampleProcess.run(
            tmp.resolve("cli"),
            "status",
            "resolve",
            "--jdbc-url",
            url,
            "--tenant",
            "context:acme",
            "--tool",
            "refund_order",
            "--key",
            "k-9f2",
            "--happened",
            "{\"content\":[{\"type\":\"text\",\"text\":\"Refunded 500 cents of order ord_9f2\"}]}");
    assertThat(settle.exit()).as(settle.out() + settle.err()).isZero();

    try (ExampleProcess server = ExampleProcess.serveHttp(tmp.resolve("run"), "--jdbc-url", url)) {
      McpSyncClient client = server.client("acme");
      CallToolResult retry =
          client.callTool(
              call(
                  "refund_order",
                  "order_id",
                  "ord_9f2",
                  "amount_cents",
                  500,
                  "idempotency_key",
                  "k-9f2"));

      assertThat(retry.isError()).as(text(retry)).isNotEqualTo(Boolean.TRUE);
      assertThat(text(retry)).isEqualTo("Refunded 500 cents of order ord_9f2");
      assertThat(retry.meta()).containsEntry("dev.mcpgate/replayed", true);
      assertThat(structured(retry)).as("no refund_id: the handler did not run").isNull();
    }
  }

  /**
   * The example's default database is an embedded H2 file, which one process holds. While the
   * server runs, {@code status resolve} cannot open it: it dies with a stack trace and exit code 1,
   * the code the doc gives for "the key has no unknown outcome" (nothing to settle), so a script or
   * an operator reading the code is told the key needs nothing while it stays fenced.
   */
  @Test
  void resolveOnADatabaseItCannotOpenDoesNotExitAsNothingToSettle() throws Exception {
    String url = "jdbc:h2:file:" + tmp.resolve("db");
    unknownRefund(url);

    ExampleProcess.Run settle;
    try (Connection runningServer = DriverManager.getConnection(url)) {
      settle =
          ExampleProcess.run(
              tmp.resolve("cli"),
              "status",
              "resolve",
              "--jdbc-url",
              url,
              "--tenant",
              "context:acme",
              "--tool",
              "refund_order",
              "--key",
              "k-9f2",
              "--not-happened");
    }

    assertThat(settle.err()).contains("Database may be already in use");
    assertThat(settle.exit()).as("exit code; 1 means: no unknown outcome to settle").isNotIn(0, 1);
  }
}
