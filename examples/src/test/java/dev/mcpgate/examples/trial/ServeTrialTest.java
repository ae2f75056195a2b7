package dev.mcpgate.examples.trial;

import static dev.mcpgate.examples.trial.ExampleProcess.call;
import static org.assertj.core.api.Assertions.assertThat;

import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.ServerParameters;
import io.modelcontextprotocol.client.transport.StdioClientTransport;
import io.modelcontextprotocol.json.McpJsonDefaults;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** docs/examples.md's two serve commands, run as a newcomer runs them. */
class ServeTrialTest {
  @TempDir Path tmp;

  /**
   * {@code serve --http 8080} on a port that something else holds (a common case for 8080): Tomcat
   * logs the BindException but does not throw, and the example prints "serving MCP at
   * http://127.0.0.1:-1/mcp" and keeps running, serving nothing, instead of saying it could not
   * start (Transports.http means to: "could not start the HTTP server on port").
   */
  @Test
  void serveOnAPortInUseSaysSoAndEnds() throws Exception {
    try (ServerSocket taken = new ServerSocket(0, 50, InetAddress.getByName("127.0.0.1"))) {
      int port = taken.getLocalPort();
      Path err = tmp.resolve("err.txt");
      Process p =
          new ProcessBuilder(
                  Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                  "-cp",
                  System.getProperty("java.class.path"),
                  "dev.mcpgate.examples.Main",
                  "serve",
                  "--http",
                  String.valueOf(port),
                  "--jdbc-url",
                  "jdbc:h2:file:" + tmp.resolve("db"))
              .directory(tmp.toFile())
              .redirectOutput(tmp.resolve("out.txt").toFile())
              .redirectError(err.toFile())
              .start();
      boolean ended;
      try {
        ended = p.waitFor(40, TimeUnit.SECONDS);
      } finally {
        p.destroy();
        if (!p.waitFor(20, TimeUnit.SECONDS)) {
          p.destroyForcibly();
          p.waitFor(20, TimeUnit.SECONDS);
        }
      }
      String said = Files.readString(err, StandardCharsets.UTF_8);
      assertThat(said).as("what it says").doesNotContain("serving MCP at");
      assertThat(ended).as("it ends instead of serving nothing; it said:%n%s", said).isTrue();
    }
  }

  /**
   * docs/examples.md, "Purging expired claims": the server purged "on a daemon thread of its own
   * ({@code mcpgate-example-purge})". An operator who looked for that name in a thread dump found
   * nothing: the thread is gate-core's ClaimPurger default, {@code mcpgate-purge-1}. The doc now
   * gives that name (as docs/operations.md does); this checks the name the doc gives. (The trial's
   * check that the dump is the server's looked for mcpgate-lease-renewer, a thread the gate starts
   * only at its first call: it now looks for the server's main class.)
   */
  @Test
  void thePurgeThreadHasTheNameTheDocGives() throws Exception {
    try (ExampleProcess http =
        ExampleProcess.serveHttp(
            tmp.resolve("run"), "--jdbc-url", "jdbc:h2:file:" + tmp.resolve("db"))) {
      Process jcmd =
          new ProcessBuilder(
                  Path.of(System.getProperty("java.home"), "bin", "jcmd").toString(),
                  String.valueOf(http.pid()),
                  "Thread.print")
              .redirectErrorStream(true)
              .start();
      String dump = new String(jcmd.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      assertThat(jcmd.waitFor(60, TimeUnit.SECONDS)).isTrue();
      // the dump is the server's (the gate starts its lease-renewer thread at the first call)
      assertThat(dump).contains("dev.mcpgate.examples.Main");
      assertThat(dump).contains("\"mcpgate-purge-1");
    }
  }

  /**
   * docs/examples.md: {@code serve --stdio} answers as tenant "constant:local" and {@code serve
   * --http} as "context:" + X-Tenant; the usage line says status takes the tenant "as stored". A
   * refund made over each is found by {@code status} under exactly that tenant, and not under the
   * other.
   */
  @Test
  void eachTransportStoresItsClaimsUnderTheTenantTheDocNames() throws Exception {
    String url = "jdbc:h2:file:" + tmp.resolve("db");
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    McpSyncClient stdio =
        McpClient.sync(
                new StdioClientTransport(
                    ServerParameters.builder(java)
                        .args(
                            "-cp",
                            System.getProperty("java.class.path"),
                            "dev.mcpgate.examples.Main",
                            "serve",
                            "--stdio",
                            "--jdbc-url",
                            url)
                        .build(),
                    McpJsonDefaults.getMapper()))
            .requestTimeout(Duration.ofSeconds(60))
            .initializationTimeout(Duration.ofSeconds(60))
            .build();
    try {
      stdio.initialize();
      CallToolResult r =
          stdio.callTool(
              call(
                  "refund_order", "order_id", "o1", "amount_cents", 100, "idempotency_key", "k-s"));
      assertThat(r.isError()).isNotEqualTo(Boolean.TRUE);
    } finally {
      stdio.closeGracefully();
    }
    Thread.sleep(2000); // the stdio server ends when its input ends, and lets go of the H2 file
    try (ExampleProcess http = ExampleProcess.serveHttp(tmp.resolve("run"), "--jdbc-url", url)) {
      CallToolResult r =
          http.client("acme")
              .callTool(
                  call(
                      "refund_order",
                      "order_id",
                      "o1",
                      "amount_cents",
                      100,
                      "idempotency_key",
                      "k-h"));
      assertThat(r.isError()).isNotEqualTo(Boolean.TRUE);
    }

    for (List<String> found :
        List.of(List.of("constant:local", "k-s"), List.of("context:acme", "k-h"))) {
      ExampleProcess.Run status =
          ExampleProcess.run(
              tmp.resolve("cli"),
              "status",
              "--jdbc-url",
              url,
              "--tenant",
              found.get(0),
              "--tool",
              "refund_order",
              "--key",
              found.get(1));
      assertThat(status.exit()).as(status.err()).isZero();
      assertThat(status.out()).as(found.toString()).contains("claim: completed by attempt 1");
    }
    ExampleProcess.Run other =
        ExampleProcess.run(
            tmp.resolve("cli"),
            "status",
            "--jdbc-url",
            url,
            "--tenant",
            "acme",
            "--tool",
            "refund_order",
            "--key",
            "k-h");
    assertThat(other.out()).contains("claim: none");
  }
}
