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
import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The command line, and {@code serve --stdio} as a real subprocess with a real stdio client. */
class MainTest {
  @TempDir Path tmp;

  private static int run(ByteArrayOutputStream err, String... args) throws Exception {
    return Main.run(
        args,
        new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8));
  }

  private static List<String> ourTemporaryFolders() throws IOException {
    try (Stream<Path> entries = Files.list(Path.of(System.getProperty("java.io.tmpdir")))) {
      return entries
          .map(p -> p.getFileName().toString())
          .filter(name -> name.startsWith("mcpgate-"))
          .sorted()
          .toList();
    }
  }

  @Test
  void theDemoPassesAndLeavesNoTemporaryFolderBehind() throws Exception {
    List<String> before = ourTemporaryFolders();
    ByteArrayOutputStream out = new ByteArrayOutputStream();

    int exit =
        Main.run(
            new String[] {"demo"},
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));

    assertThat(exit).as(out.toString(StandardCharsets.UTF_8)).isZero();
    assertThat(ourTemporaryFolders())
        .as("the demo's database and Tomcat's work folder are gone")
        .isEqualTo(before);
  }

  @Test
  void badCommandLinesAreRefusedWithUsage() throws Exception {
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    assertThat(run(err)).isEqualTo(2);
    assertThat(run(err, "fly")).isEqualTo(2);
    assertThat(run(err, "serve")).isEqualTo(2);
    assertThat(run(err, "serve", "--http", "eighty")).isEqualTo(2);
    assertThat(err.toString(StandardCharsets.UTF_8))
        .contains("usage:")
        .contains("unknown command \"fly\"")
        .contains("exactly one of --stdio and --http")
        .contains("\"eighty\"");
    assertThat(Path.of("mcpgate-example-data"))
        .as("a refused command line writes nothing")
        .doesNotExist();
  }

  @Test
  void serveOverStdioEndsWhenItsInputEnds() throws Exception {
    Path dir = tmp.resolve("eof");
    String javaBin = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    Process process =
        new ProcessBuilder(
                javaBin,
                "-cp",
                System.getProperty("java.class.path"),
                Main.class.getName(),
                "serve",
                "--stdio",
                "--jdbc-url",
                "jdbc:h2:file:" + dir.resolve("db"))
            .redirectError(ProcessBuilder.Redirect.DISCARD)
            .start();
    process.getOutputStream().close();

    assertThat(process.waitFor(60, java.util.concurrent.TimeUnit.SECONDS)).as("exited").isTrue();
    assertThat(process.exitValue()).isZero();
  }

  private static Process serveStdio(Path db) throws IOException {
    String javaBin = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    return new ProcessBuilder(
            javaBin,
            "-cp",
            System.getProperty("java.class.path"),
            Main.class.getName(),
            "serve",
            "--stdio",
            "--jdbc-url",
            "jdbc:h2:file:" + db)
        .redirectError(ProcessBuilder.Redirect.DISCARD)
        .start();
  }

  /** Sends the lines, then reads {@code replies} reply lines (in whatever order they come). */
  private static List<String> exchange(Process process, List<String> lines, int replies)
      throws Exception {
    BlockingQueue<String> received = new LinkedBlockingQueue<>();
    Thread reader =
        new Thread(
            () -> {
              try (BufferedReader out =
                  new BufferedReader(
                      new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = out.readLine()) != null) {
                  received.add(line);
                }
              } catch (IOException ended) {
                // the process went away
              }
            });
    reader.setDaemon(true);
    reader.start();
    OutputStream in = process.getOutputStream();
    for (String line : lines) {
      in.write((line + "\n").getBytes(StandardCharsets.UTF_8));
      in.flush();
    }
    List<String> got = new ArrayList<>();
    while (got.size() < replies) {
      String line = received.poll(30, TimeUnit.SECONDS);
      assertThat(line).as("reply %d of %d; got %s", got.size() + 1, replies, got).isNotNull();
      got.add(line);
    }
    return got;
  }

  @Test
  void malformedStdioLinesAreAnsweredWithParseErrorsAndTheSessionGoesOn() throws Exception {
    Path db = tmp.resolve("bad").resolve("db");
    String initialize =
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":"
            + "{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},"
            + "\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}";
    String initialized = "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}";
    String ping = "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"ping\"}";
    Process process = serveStdio(db);
    List<String> replies;
    try {
      replies =
          exchange(
              process,
              List.of(
                  initialize,
                  initialized,
                  "this is not json",
                  "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\",\"params\":{\"n\":NaN}}",
                  "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"ping\",\"params\":{\"n\":"
                      + "1".repeat(1001)
                      + "}}",
                  "[".repeat(1001) + "]".repeat(1001),
                  "42",
                  "{\"x\":\"" + "a".repeat(StdioGuard.MAX_MESSAGE_BYTES) + "\"}",
                  ping),
              8);
    } finally {
      process.getOutputStream().close();
    }
    assertThat(process.waitFor(60, TimeUnit.SECONDS)).as("exited at the end of stdin").isTrue();
    assertThat(process.exitValue()).isZero();

    assertThat(replies)
        .filteredOn(r -> r.contains("\"id\":1") && r.contains("\"result\""))
        .hasSize(1);
    assertThat(replies)
        .as("the session goes on after the bad lines")
        .filteredOn(r -> r.contains("\"id\":9") && r.contains("\"result\""))
        .hasSize(1);
    assertThat(replies)
        .filteredOn(r -> r.contains("\"code\":-32700") && r.contains("\"id\":null"))
        .hasSize(5);
    assertThat(replies).filteredOn(r -> r.contains("\"code\":-32600")).hasSize(1);
    assertThat(replies)
        .filteredOn(r -> r.contains("over " + StdioGuard.MAX_MESSAGE_BYTES))
        .hasSize(1);

    Process again = serveStdio(db);
    try {
      assertThat(exchange(again, List.of(initialize), 1).get(0))
          .as("the H2 file was released: a second server opens it")
          .contains("\"result\"");
    } finally {
      again.getOutputStream().close();
      assertThat(again.waitFor(60, TimeUnit.SECONDS)).isTrue();
    }
  }

  @Test
  void serveOverStdioAnswersARealClientAndReplaysARetry() throws Exception {
    Path dir = tmp.resolve("client");
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    ServerParameters params =
        ServerParameters.builder(java)
            .args(
                "-cp",
                System.getProperty("java.class.path"),
                Main.class.getName(),
                "serve",
                "--stdio",
                "--jdbc-url",
                "jdbc:h2:file:" + dir.resolve("db"))
            .build();
    McpSyncClient client =
        McpClient.sync(new StdioClientTransport(params, McpJsonDefaults.getMapper()))
            .requestTimeout(Duration.ofSeconds(60))
            .initializationTimeout(Duration.ofSeconds(60))
            .build();
    try {
      client.initialize();
      CallToolRequest refund =
          new CallToolRequest(
              "refund_order",
              Map.of("order_id", "ord_1", "amount_cents", 100, "idempotency_key", "stdio-1"));
      CallToolResult first = client.callTool(refund);
      CallToolResult retry = client.callTool(refund);
      CallToolResult noId =
          client.callTool(
              new CallToolRequest(
                  "stop_session", Map.of("end_at", "2025-06-01T15:00:00Z", "summary", "done")));

      assertThat(first.isError()).isNotEqualTo(Boolean.TRUE);
      assertThat(retry.structuredContent()).isEqualTo(first.structuredContent());
      assertThat(retry.meta()).containsEntry("dev.mcpgate/replayed", true);
      assertThat(((McpSchema.TextContent) noId.content().get(0)).text())
          .contains("needs session_id")
          .contains("running sessions");
      assertThat(client.listTools().tools())
          .extracting(McpSchema.Tool::name)
          .contains(
              "refund_order",
              "send_password_reset",
              "publish_story",
              "stop_session",
              "report_reproduction",
              "get_story",
              "get_session",
              "start_session");
    } finally {
      client.closeGracefully();
    }
  }
}
