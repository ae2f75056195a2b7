package dev.mcpgate.client;

import static org.assertj.core.api.Assertions.assertThat;

import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.ServerParameters;
import io.modelcontextprotocol.client.transport.StdioClientTransport;
import io.modelcontextprotocol.json.McpJsonDefaults;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The example server as its own process ({@code serve --stdio}), reached through the SDK's own
 * {@link StdioClientTransport} and a relay process that loses the first answer of every intent. The
 * server's audit trail, read from its database after it exits, counts the executions.
 */
class ExampleServerProcessTest {
  private static final int INTENTS = 4;

  @TempDir Path tmp;

  @Test
  void theServerProcessRunsEachIntentOnceThoughItsFirstAnswerIsLost() throws Exception {
    String jdbcUrl = "jdbc:h2:file:" + tmp.resolve("db");
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    String classPath = System.getProperty("java.class.path");
    ServerParameters relayThenServer =
        ServerParameters.builder(java)
            .args(
                "-cp",
                classPath,
                StdioRelay.class.getName(),
                "1",
                java,
                "-cp",
                classPath,
                "dev.mcpgate.examples.Main",
                "serve",
                "--stdio",
                "--jdbc-url",
                jdbcUrl)
            .build();
    McpSyncClient client =
        McpClient.sync(new StdioClientTransport(relayThenServer, McpJsonDefaults.getMapper()))
            .requestTimeout(Duration.ofSeconds(20))
            .build();
    List<CallOutcome> outcomes = new ArrayList<>();
    try {
      client.initialize(); // two JVMs start first: hence the long request timeout
      IdempotentCalls calls =
          IdempotentCalls.builder(client)
              .retryPolicy(
                  RetryPolicy.builder()
                      .initialBackoff(Duration.ofMillis(50))
                      .deadline(Duration.ofSeconds(90))
                      .build())
              .build();
      ExecutorService threads = Executors.newFixedThreadPool(INTENTS);
      List<Future<CallOutcome>> futures = new ArrayList<>();
      for (int i = 0; i < INTENTS; i++) {
        Map<String, Object> args = Map.of("order_id", "ord_p" + i, "amount_cents", 200 + i);
        futures.add(threads.submit(() -> calls.call("refund_order", args)));
      }
      for (Future<CallOutcome> f : futures) {
        outcomes.add(f.get());
      }
      threads.shutdown();
    } finally {
      client.closeGracefully();
    }

    for (CallOutcome outcome : outcomes) {
      assertThat(outcome).isInstanceOf(CallOutcome.Completed.class);
      assertThat(((CallOutcome.Completed) outcome).replayed()).isTrue();
      assertThat(outcome.attempts()).isGreaterThanOrEqualTo(2);
    }
    Map<String, Integer> decisions = auditOfRefunds(jdbcUrl);
    assertThat(decisions.get("EXECUTED"))
        .as("the server's audit: one execution per intent (%s)", decisions)
        .isEqualTo(INTENTS);
    assertThat(decisions.get("REPLAYED")).isGreaterThanOrEqualTo(INTENTS);
  }

  /** The refunds' audit decisions, once the server process has exited and released its database. */
  private static Map<String, Integer> auditOfRefunds(String jdbcUrl) throws Exception {
    SQLException last = null;
    for (int i = 0; i < 300; i++) {
      try (Connection c = DriverManager.getConnection(jdbcUrl);
          ResultSet rs =
              c.createStatement()
                  .executeQuery(
                      "SELECT decision, COUNT(*) FROM mcpgate_audit WHERE tool = 'refund_order'"
                          + " GROUP BY decision")) {
        Map<String, Integer> counts = new HashMap<>();
        while (rs.next()) {
          counts.put(rs.getString(1), rs.getInt(2));
        }
        return counts;
      } catch (SQLException inUse) {
        last = inUse; // the server still runs, and holds the file
        Thread.sleep(100);
      }
    }
    throw last;
  }
}
