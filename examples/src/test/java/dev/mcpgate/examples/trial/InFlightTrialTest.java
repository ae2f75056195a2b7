package dev.mcpgate.examples.trial;

import static dev.mcpgate.examples.trial.ExampleProcess.call;
import static dev.mcpgate.examples.trial.ExampleProcess.structured;
import static dev.mcpgate.examples.trial.ExampleProcess.text;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A copy that arrives while the first attempt still runs, on the example server with PostgreSQL (a
 * schema of the test's own): the first attempt of report_reproduction is held by a row lock that
 * the test takes, so it runs past the server's 10-second in-flight wait. What the copy is told must
 * be true: it did not run, and the same call again is what to do; and the same call again, once the
 * first has finished, gets the first result.
 */
class InFlightTrialTest {
  private static final String PG = "jdbc:postgresql://127.0.0.1:5432/test?user=postgres";

  @TempDir Path tmp;

  private static boolean postgresRuns() {
    try (Connection c = DriverManager.getConnection(PG)) {
      return c.isValid(2);
    } catch (SQLException e) {
      return false;
    }
  }

  @Test
  void aCopyRefusedAsInProgressIsToldToRetryAndItsRetryGetsTheFirstResult() throws Exception {
    assumeTrue(postgresRuns(), "PostgreSQL on 127.0.0.1:5432, database test, user postgres");
    String schema = "trial_inflight_" + UUID.randomUUID().toString().substring(0, 8);
    try (Connection admin = DriverManager.getConnection(PG);
        Statement st = admin.createStatement()) {
      st.execute("CREATE SCHEMA " + schema);
    }
    try (ExampleProcess server =
            ExampleProcess.serveHttp(
                tmp.resolve("run"), "--jdbc-url", PG + "&currentSchema=" + schema);
        Connection lock = DriverManager.getConnection(PG)) {
      McpSyncClient first = server.client("acme");
      McpSyncClient copy = server.client("acme");
      first.callTool(call("publish_story", "slug", "s", "title", "t", "body", "b"));
      // hold the row the first attempt will insert: its INSERT waits on this transaction
      lock.setAutoCommit(false);
      try (PreparedStatement ps =
          lock.prepareStatement(
              "INSERT INTO " + schema + ".example_reproductions VALUES (?, ?, ?)")) {
        ps.setString(1, "context:acme");
        ps.setString(2, "s");
        ps.setString(3, "ada");
        ps.executeUpdate();
      }
      CallToolRequest report = call("report_reproduction", "story_slug", "s", "reporter", "ada");
      CompletableFuture<CallToolResult> running =
          CompletableFuture.supplyAsync(() -> first.callTool(report));
      awaitAnInsertWaitingOnALock();

      CallToolResult refused = copy.callTool(report);

      lock.rollback(); // the first attempt goes on, inserts and counts
      CallToolResult firstResult = running.get(60, TimeUnit.SECONDS);
      CallToolResult retry = copy.callTool(report);

      assertThat(refused.isError()).as(text(refused)).isTrue();
      @SuppressWarnings("unchecked")
      Map<String, Object> error = (Map<String, Object>) structured(refused).get("error");
      assertThat(error)
          .containsEntry("type", "idempotency_key_in_progress")
          .containsEntry("executed", "unknown") // McpGateErrors: "is running" is unknown
          .containsEntry("retry_with_same_key", true)
          .containsKey("retry_after_ms");
      assertThat(text(firstResult)).startsWith("Counted your reproduction of s; 1 so far");
      assertThat(text(retry)).isEqualTo(text(firstResult));
      assertThat(retry.meta()).containsEntry("dev.mcpgate/replayed", true);
    } finally {
      try (Connection admin = DriverManager.getConnection(PG);
          Statement st = admin.createStatement()) {
        st.execute("DROP SCHEMA " + schema + " CASCADE");
      }
    }
  }

  /** Waits until a server backend's INSERT waits on a row lock (the one the test holds). */
  private static void awaitAnInsertWaitingOnALock() throws Exception {
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    try (Connection watch = DriverManager.getConnection(PG);
        PreparedStatement waiting =
            watch.prepareStatement(
                "SELECT COUNT(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'"
                    + " AND query ILIKE '%example_reproductions%'")) {
      while (System.nanoTime() < until) {
        try (java.sql.ResultSet rs = waiting.executeQuery()) {
          rs.next();
          if (rs.getInt(1) > 0) {
            return;
          }
        }
        Thread.sleep(10);
      }
    }
    throw new AssertionError("the first attempt's INSERT did not wait on the lock within 30 s");
  }
}
