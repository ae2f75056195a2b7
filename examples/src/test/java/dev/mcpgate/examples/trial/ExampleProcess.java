package dev.mcpgate.examples.trial;

import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import io.modelcontextprotocol.spec.McpSchema.TextContent;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The example as a newcomer runs it: {@code dev.mcpgate.examples.Main} in a child JVM (the same
 * classes as the jar), and real MCP clients over Streamable HTTP.
 */
final class ExampleProcess implements AutoCloseable {
  private static final Pattern SERVING =
      Pattern.compile("serving MCP at http://127.0.0.1:(\\d+)/mcp");

  private final Process process;
  private final List<McpSyncClient> clients = new ArrayList<>();
  final int port;

  private ExampleProcess(Process process, int port) {
    this.process = process;
    this.port = port;
  }

  private static List<String> command(String... args) {
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.add("-cp");
    cmd.add(System.getProperty("java.class.path"));
    cmd.add("dev.mcpgate.examples.Main");
    cmd.addAll(List.of(args));
    return cmd;
  }

  /** Starts {@code serve --http 0} with the extra options, and waits for its port. */
  static ExampleProcess serveHttp(Path workDir, String... options) throws IOException {
    List<String> args = new ArrayList<>(List.of("serve", "--http", "0"));
    args.addAll(List.of(options));
    Files.createDirectories(workDir);
    Process p =
        new ProcessBuilder(command(args.toArray(String[]::new)))
            .directory(workDir.toFile())
            .redirectOutput(workDir.resolve("stdout.txt").toFile())
            .start();
    BufferedReader err =
        new BufferedReader(new InputStreamReader(p.getErrorStream(), StandardCharsets.UTF_8));
    StringBuilder seen = new StringBuilder();
    String line;
    while ((line = err.readLine()) != null) {
      seen.append(line).append('\n');
      Matcher m = SERVING.matcher(line);
      if (m.find()) {
        Thread drain =
            new Thread(
                () -> {
                  try {
                    while (err.readLine() != null) {
                      // keep the pipe empty
                    }
                  } catch (IOException ignored) {
                    // the process ended
                  }
                });
        drain.setDaemon(true);
        drain.start();
        return new ExampleProcess(p, Integer.parseInt(m.group(1)));
      }
    }
    p.destroyForcibly();
    throw new IllegalStateException("the server did not start:\n" + seen);
  }

  /** The server process's id, for the JDK's tools. */
  long pid() {
    return process.pid();
  }

  /** A client whose calls carry {@code X-Tenant: tenant}. */
  McpSyncClient client(String tenant) {
    McpSyncClient c =
        McpClient.sync(
                HttpClientStreamableHttpTransport.builder("http://127.0.0.1:" + port)
                    .endpoint("/mcp")
                    .httpRequestCustomizer(
                        (b, m, u, body, ctx) -> {
                          if (tenant != null) {
                            b.header("X-Tenant", tenant);
                          }
                        })
                    .build())
            .requestTimeout(Duration.ofSeconds(60))
            .build();
    c.initialize();
    clients.add(c);
    return c;
  }

  @Override
  public void close() throws InterruptedException {
    clients.forEach(McpSyncClient::closeGracefully);
    process.destroy(); // SIGTERM: the server's shutdown hook closes it
    if (!process.waitFor(30, TimeUnit.SECONDS)) {
      process.destroyForcibly();
      process.waitFor(30, TimeUnit.SECONDS);
    }
  }

  /** What one run of the command line did. */
  record Run(int exit, String out, String err) {}

  /** Runs the command line to its end (at most 3 minutes). */
  static Run run(Path workDir, String... args) throws IOException, InterruptedException {
    Files.createDirectories(workDir);
    Path out = Files.createTempFile(workDir, "out", ".txt");
    Path err = Files.createTempFile(workDir, "err", ".txt");
    Process p =
        new ProcessBuilder(command(args))
            .directory(workDir.toFile())
            .redirectOutput(out.toFile())
            .redirectError(err.toFile())
            .start();
    if (!p.waitFor(3, TimeUnit.MINUTES)) {
      p.destroyForcibly();
      p.waitFor(30, TimeUnit.SECONDS);
      throw new IllegalStateException("the command did not end: " + List.of(args));
    }
    return new Run(
        p.exitValue(),
        Files.readString(out, StandardCharsets.UTF_8),
        Files.readString(err, StandardCharsets.UTF_8));
  }

  /** A call of tool with the arguments given as name, value, name, value... */
  static CallToolRequest call(String tool, Object... keyValues) {
    Map<String, Object> args = new HashMap<>();
    for (int i = 0; i < keyValues.length; i += 2) {
      args.put((String) keyValues[i], keyValues[i + 1]);
    }
    return new CallToolRequest(tool, args);
  }

  static String text(CallToolResult result) {
    return ((TextContent) result.content().get(0)).text();
  }

  @SuppressWarnings("unchecked")
  static Map<String, Object> structured(CallToolResult result) {
    return (Map<String, Object>) result.structuredContent();
  }
}
