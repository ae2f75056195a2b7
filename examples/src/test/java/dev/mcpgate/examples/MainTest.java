package dev.mcpgate.examples;

import static org.assertj.core.api.Assertions.assertThat;

import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.ServerParameters;
import io.modelcontextprotocol.client.transport.StdioClientTransport;
import io.modelcontextprotocol.json.McpJsonDefaults;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The command line, and {@code serve --stdio} as a real subprocess with a real stdio client. */
class MainTest {

  private static int run(ByteArrayOutputStream err, String... args) throws Exception {
    return Main.run(args, new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8));
  }

  @Test
  void badCommandLinesAreRefusedWithUsage() throws Exception {
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    assertThat(run(err)).isEqualTo(2);
    assertThat(run(err, "fly")).isEqualTo(2);
    assertThat(run(err, "serve")).isEqualTo(2);
    assertThat(run(err, "serve", "--http", "eighty")).isEqualTo(2);
    assertThat(err.toString(StandardCharsets.UTF_8)).contains("usage:").contains("unknown command \"fly\"")
        .contains("exactly one of --stdio and --http").contains("\"eighty\"");
    assertThat(Path.of("mcpgate-example-data")).as("a refused command line writes nothing")
        .doesNotExist();
  }

  @Test
  void serveOverStdioEndsWhenItsInputEnds() throws Exception {
    Path dir = Files.createTempDirectory("mcpgate-stdio-eof");
    String javaBin = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    Process process = new ProcessBuilder(javaBin, "-cp", System.getProperty("java.class.path"),
        Main.class.getName(), "serve", "--stdio", "--jdbc-url", "jdbc:h2:file:" + dir.resolve("db"))
        .redirectError(ProcessBuilder.Redirect.DISCARD).start();
    process.getOutputStream().close();

    assertThat(process.waitFor(60, java.util.concurrent.TimeUnit.SECONDS)).as("exited").isTrue();
    assertThat(process.exitValue()).isZero();
  }

  @Test
  void serveOverStdioAnswersARealClientAndReplaysARetry() throws Exception {
    Path dir = Files.createTempDirectory("mcpgate-stdio-test");
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    ServerParameters params = ServerParameters.builder(java)
        .args("-cp", System.getProperty("java.class.path"), Main.class.getName(), "serve", "--stdio",
            "--jdbc-url", "jdbc:h2:file:" + dir.resolve("db"))
        .build();
    McpSyncClient client = McpClient.sync(new StdioClientTransport(params, McpJsonDefaults.getMapper()))
        .requestTimeout(Duration.ofSeconds(60)).initializationTimeout(Duration.ofSeconds(60)).build();
    try {
      client.initialize();
      CallToolRequest refund = new CallToolRequest("refund_order",
          Map.of("order_id", "ord_1", "amount_cents", 100, "idempotency_key", "stdio-1"));
      CallToolResult first = client.callTool(refund);
      CallToolResult retry = client.callTool(refund);
      CallToolResult noId = client.callTool(new CallToolRequest("stop_session",
          Map.of("end_at", "2025-06-01T15:00:00Z", "summary", "done")));

      assertThat(first.isError()).isNotEqualTo(Boolean.TRUE);
      assertThat(retry.structuredContent()).isEqualTo(first.structuredContent());
      assertThat(retry.meta()).containsEntry("dev.mcpgate/replayed", true);
      assertThat(((McpSchema.TextContent) noId.content().get(0)).text())
          .contains("needs session_id").contains("running sessions");
      assertThat(client.listTools().tools()).extracting(McpSchema.Tool::name)
          .contains("refund_order", "send_password_reset", "publish_story", "stop_session",
              "report_reproduction", "get_story", "get_session", "start_session");
    } finally {
      client.closeGracefully();
    }
  }
}
