package dev.mcpgate.examples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.mcpgate.core.ClaimId;
import dev.mcpgate.core.GateResult;
import dev.mcpgate.core.LeaseToken;
import dev.mcpgate.core.OutcomeUnknownException;
import dev.mcpgate.core.ResultMapper;
import dev.mcpgate.core.ToolCall;
import dev.mcpgate.core.spi.ClaimAttempt;
import dev.mcpgate.core.spi.ClaimRequest;
import dev.mcpgate.mcp.TenantResolver;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The operator's command: after a refund, its retries and a reuse of its key with other arguments,
 * {@code status} says in plain words what happened, and {@code --search} finds it.
 */
class StatusTest {
  @TempDir Path tmp;

  private static String run(String... args) throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    int code =
        Main.run(
            args,
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
    assertThat(code).as(out.toString(StandardCharsets.UTF_8)).isZero();
    return out.toString(StandardCharsets.UTF_8);
  }

  private static int runCode(ByteArrayOutputStream out, String... args) throws Exception {
    return Main.run(
        args,
        new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(out, true, StandardCharsets.UTF_8));
  }

  /** Leaves the key's outcome unknown, as a refund whose provider timed out would. */
  private static ToolCall unknownRefund(ExampleServer server, String key) {
    ToolCall call =
        ToolCall.of(
            "acme", "refund_order", key, Map.of("order_id", "ord_9f2", "amount_cents", 500));
    assertThatThrownBy(
            () ->
                server
                    .gate
                    .execute(
                        call,
                        ResultMapper.bytes(),
                        ctx -> {
                          throw new OutcomeUnknownException(
                              "the payment provider timed out (test)");
                        })
                    .orThrow())
        .isInstanceOf(OutcomeUnknownException.class);
    return call;
  }

  @Test
  void anOperatorSettlesAnUnknownOutcomeAsHappenedOrNotHappened() throws Exception {
    String url = "jdbc:h2:file:" + tmp.resolve("db");
    ToolCall happened;
    ToolCall notHappened;
    try (ExampleServer server =
        new ExampleServer(
            new ExampleServer.Config(
                url, null, null, TenantResolver.fromTransportContext("tenant")))) {
      happened = unknownRefund(server, "k-happened");
      notHappened = unknownRefund(server, "k-not-happened");
    }
    assertThat(
            run(
                "status",
                "--jdbc-url",
                url,
                "--tenant",
                "acme",
                "--tool",
                "refund_order",
                "--key",
                "k-happened"))
        .contains("outcome unknown (attempt 1), fenced until");

    String settled =
        run(
            "status",
            "resolve",
            "--jdbc-url",
            url,
            "--tenant",
            "acme",
            "--tool",
            "refund_order",
            "--key",
            "k-happened",
            "--happened",
            "{\"content\":[{\"type\":\"text\",\"text\":\"Refunded 500 cents (settled)\"}]}");
    String lifted =
        run(
            "status",
            "resolve",
            "--jdbc-url",
            url,
            "--tenant",
            "acme",
            "--tool",
            "refund_order",
            "--key",
            "k-not-happened",
            "--not-happened");

    assertThat(settled)
        .contains("settled: the effect happened", "claim: completed by attempt 1", "result stored");
    assertThat(lifted).contains("settled: the effect did not happen", "claim: none");
    ByteArrayOutputStream again = new ByteArrayOutputStream();
    assertThat(
            runCode(
                again,
                "status",
                "resolve",
                "--jdbc-url",
                url,
                "--tenant",
                "acme",
                "--tool",
                "refund_order",
                "--key",
                "k-happened",
                "--not-happened"))
        .isEqualTo(1);
    assertThat(again.toString(StandardCharsets.UTF_8))
        .contains("has no unknown outcome to settle (none, completed, or in progress");

    try (ExampleServer server =
        new ExampleServer(
            new ExampleServer.Config(
                url, null, null, TenantResolver.fromTransportContext("tenant")))) {
      GateResult<byte[]> replay =
          server.gate.execute(
              happened,
              ResultMapper.bytes(),
              ctx -> {
                throw new AssertionError("a settled key must replay, not run");
              });
      assertThat(replay).isInstanceOf(GateResult.Replayed.class);
      assertThat(new String(((GateResult.Replayed<byte[]>) replay).value(), StandardCharsets.UTF_8))
          .contains("Refunded 500 cents (settled)");
      GateResult<byte[]> rerun =
          server.gate.execute(
              notHappened, ResultMapper.bytes(), ctx -> "ran".getBytes(StandardCharsets.UTF_8));
      assertThat(rerun).isInstanceOf(GateResult.Executed.class);
    }
  }

  /**
   * A settlement that took a key over and stopped before its verdict leaves the row in progress
   * under its own token: no action runs under it, so the status tells it as an unknown outcome to
   * settle, not as an attempt in progress; once settled, the completion is told as a settlement's.
   */
  @Test
  void aRowHeldByASettlementIsToldAsAnUnknownOutcomeAndItsResultAsSettled() throws Exception {
    String url = "jdbc:h2:file:" + tmp.resolve("db");
    String[] status = {
      "status", "--jdbc-url", url, "--tenant", "acme", "--tool", "refund_order", "--key", "k-held"
    };
    try (ExampleServer server =
        new ExampleServer(
            new ExampleServer.Config(
                url, null, null, TenantResolver.fromTransportContext("tenant")))) {
      for (String key : new String[] {"k-held", "k-fenced"}) {
        ClaimId id = new ClaimId("acme", "refund_order", key);
        LeaseToken token = LeaseToken.settlement();
        assertThat(
                server.store.claim(
                    new ClaimRequest(id, "h1:none", token, Duration.ofDays(1), Duration.ofDays(1))))
            .isInstanceOf(ClaimAttempt.Acquired.class);
        if (key.equals("k-fenced")) { // the takeover fenced, then the verdict not written
          assertThat(server.store.markUnknown(id, token, Duration.ofDays(1))).isTrue();
        }
      }
    }
    String[] fenced = status.clone();
    fenced[fenced.length - 1] = "k-fenced";
    assertThat(run(fenced))
        .contains("outcome unknown (attempt 1 is an operator's takeover of an earlier attempt,");

    assertThat(run(status))
        .contains("outcome unknown (attempt 1 is an operator's takeover of an earlier attempt,")
        .doesNotContain("in progress");

    String[] resolve = new String[status.length + 3];
    System.arraycopy(status, 0, resolve, 0, 1);
    resolve[1] = "resolve";
    System.arraycopy(status, 1, resolve, 2, status.length - 1);
    resolve[status.length + 1] = "--happened";
    resolve[status.length + 2] = "{\"content\":[{\"type\":\"text\",\"text\":\"Refunded\"}]}";
    assertThat(run(resolve))
        .contains("settled: the effect happened")
        .contains("completed by attempt 1 at ")
        .contains("(settled, after an operator's takeover)");
  }

  @Test
  void resolveRefusesAResultThatIsNotAToolResultAndAMissingVerdict() throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    assertThat(
            runCode(
                out,
                "status",
                "resolve",
                "--jdbc-url",
                "jdbc:h2:mem:x",
                "--tenant",
                "acme",
                "--tool",
                "refund_order",
                "--key",
                "k",
                "--happened",
                "not json"))
        .isEqualTo(2);
    assertThat(out.toString(StandardCharsets.UTF_8))
        .contains("--happened needs the call's" + " result as MCP JSON", "got 'not json'");
    ByteArrayOutputStream neither = new ByteArrayOutputStream();
    assertThat(
            runCode(
                neither,
                "status",
                "resolve",
                "--jdbc-url",
                "jdbc:h2:mem:x",
                "--tenant",
                "acme",
                "--tool",
                "refund_order",
                "--key",
                "k"))
        .isEqualTo(2);
    assertThat(neither.toString(StandardCharsets.UTF_8)).contains("exactly one of --happened");
  }

  @Test
  void statusTellsWhatHappenedToOneKey() throws Exception {
    String url = "jdbc:h2:file:" + tmp.resolve("db");
    try (ExampleServer server =
            new ExampleServer(
                new ExampleServer.Config(
                    url, null, null, TenantResolver.fromTransportContext("tenant")));
        Transports.Http http = Transports.http(0, server.tools())) {
      McpSyncClient client =
          McpClient.sync(
                  HttpClientStreamableHttpTransport.builder("http://127.0.0.1:" + http.port())
                      .endpoint("/mcp")
                      .httpRequestCustomizer((b, m, u, body, ctx) -> b.header("X-Tenant", "acme"))
                      .build())
              .build();
      client.initialize();
      Map<String, Object> refund =
          Map.of("order_id", "ord_9f2", "amount_cents", 500, "idempotency_key", "k-status");
      for (int i = 0; i < 4; i++) {
        client.callTool(new CallToolRequest("refund_order", refund));
      }
      client.callTool(
          new CallToolRequest(
              "refund_order",
              Map.of("order_id", "ord_9f2", "amount_cents", 900, "idempotency_key", "k-status")));
      client.closeGracefully();
    } // closing the server flushes its audit trail

    String status =
        run(
            "status",
            "--jdbc-url",
            url,
            "--tenant",
            "context:acme",
            "--tool",
            "refund_order",
            "--key",
            "k-status");
    assertThat(status)
        .contains(
            "claim: completed by attempt 1",
            "result stored",
            "history: ran once, last by attempt 1; replayed 3 times; conflict 1 time",
            "EXECUTED (attempt 1)",
            "CONFLICT");

    String found =
        run("status", "--jdbc-url", url, "--tenant", "context:acme", "--search", "amount_cents");
    assertThat(found).contains("5 record(s)", "refund_order", "key k-status");
    assertThat(
            run(
                "status",
                "--jdbc-url",
                url,
                "--tenant",
                "other",
                "--tool",
                "refund_order",
                "--key",
                "k-status"))
        .contains("claim: none", "history: no audit records");
  }
}
