package dev.mcpgate.examples;

import static dev.mcpgate.examples.Calls.call;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.mcpgate.mcp.TenantResolver;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.math.BigInteger;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a newcomer copies from the example server, at its edges: refunds that never pay twice or pay
 * a truncated amount, ends in the future, reads without a tenant, and one message per tool. Over
 * real Streamable HTTP, on H2.
 */
class ExampleEdgesTest {
  @TempDir Path tmp;
  private ExampleServer server;
  private Transports.Http http;
  private McpSyncClient client;

  @BeforeEach
  void start() throws Exception {
    String url = "jdbc:h2:file:" + tmp.resolve("db");
    server =
        new ExampleServer(
            new ExampleServer.Config(
                url, null, null, TenantResolver.fromTransportContext("tenant"), Set.of()));
    http = Transports.http(0, server.tools());
    client = client("edges");
  }

  private McpSyncClient client(String tenant) {
    McpSyncClient c =
        McpClient.sync(
                HttpClientStreamableHttpTransport.builder("http://127.0.0.1:" + http.port())
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
    return c;
  }

  @AfterEach
  void stop() {
    client.closeGracefully();
    http.close();
    server.close();
  }

  @Test
  void amountsThatAreNotExactWholeCentsAreRefusedAndNothingIsRefunded() {
    List<Object> bad =
        List.of(
            new BigInteger("12345678901234567890123"),
            new BigInteger("9223372036854775808"),
            12.5,
            -1,
            0);
    int i = 0;
    for (Object amount : bad) {
      CallToolResult result =
          client.callTool(
              call(
                  "refund_order",
                  "order_id",
                  "ord_1",
                  "amount_cents",
                  amount,
                  "idempotency_key",
                  "amt-" + i++));
      assertThat(result.isError()).as("amount %s", amount).isTrue();
      // 12.5 breaks the schema's "integer", and the SDK refuses it before the tool runs
      assertThat(((McpSchema.TextContent) result.content().get(0)).text())
          .as("amount %s", amount)
          .containsAnyOf("whole number of cents", "integer expected");
    }
    assertThat(server.externals.payments.refunds).isEmpty();

    CallToolResult largest =
        client.callTool(
            call(
                "refund_order",
                "order_id",
                "ord_1",
                "amount_cents",
                Long.MAX_VALUE,
                "idempotency_key",
                "amt-max"));
    assertThat(largest.isError()).isNotEqualTo(Boolean.TRUE);
    assertThat(server.externals.payments.refunds)
        .singleElement()
        .satisfies(r -> assertThat(r.amountCents()).isEqualTo(Long.MAX_VALUE));
  }

  @Test
  void anAttemptThatDiesAfterTheProviderAcceptedTheRefundIsRetriedWithoutPayingTwice() {
    CallToolRequest refund =
        call(
            "refund_order",
            "order_id",
            "ord_9f2",
            "amount_cents",
            500,
            "idempotency_key",
            "crash-1");
    server.crashAfterNextRefund.set(true);
    assertThatThrownBy(() -> client.callTool(refund)).hasMessageContaining("simulated crash");

    CallToolResult retry = client.callTool(refund);

    assertThat(retry.isError()).isNotEqualTo(Boolean.TRUE);
    assertThat(server.executions("refund_order")).isEqualTo(2);
    assertThat(server.externals.payments.refunds).as("one refund at the provider").hasSize(1);
    @SuppressWarnings("unchecked")
    Map<String, Object> structured = (Map<String, Object>) retry.structuredContent();
    assertThat(structured.get("refund_id"))
        .isEqualTo(server.externals.payments.refunds.get(0).refundId());
  }

  @Test
  void aStopWithAnEndInTheFutureIsRecordedAtTheServersNowInEitherOrder() {
    for (String id : List.of("f-1", "f-2")) {
      client.callTool(
          call("start_session", "session_id", id, "started_at", "2025-06-01T13:00:00Z"));
    }
    Instant before = Instant.now().minusSeconds(1);
    CallToolResult[] f1 = {
      client.callTool(
          call(
              "stop_session",
              "session_id",
              "f-1",
              "end_at",
              "2030-01-01T00:00:00Z",
              "summary",
              "phone")),
      client.callTool(
          call(
              "stop_session",
              "session_id",
              "f-1",
              "end_at",
              "2031-01-01T00:00:00Z",
              "summary",
              "laptop"))
    };
    CallToolResult[] f2 = {
      client.callTool(
          call(
              "stop_session",
              "session_id",
              "f-2",
              "end_at",
              "2031-01-01T00:00:00Z",
              "summary",
              "laptop")),
      client.callTool(
          call(
              "stop_session",
              "session_id",
              "f-2",
              "end_at",
              "2030-01-01T00:00:00Z",
              "summary",
              "phone"))
    };
    Instant after = Instant.now().plusSeconds(1);

    for (CallToolResult r : List.of(f1[0], f1[1], f2[0], f2[1])) {
      assertThat(r.isError()).isNotEqualTo(Boolean.TRUE);
      assertThat(((McpSchema.TextContent) r.content().get(0)).text())
          .contains("ahead of the server's clock");
    }
    for (String id : List.of("f-1", "f-2")) {
      Instant ended =
          Instant.parse((String) server.sessions.sessionState("context:edges", id).get("ended_at"));
      assertThat(ended).as(id).isBetween(before, after);
    }
  }

  @Test
  void aReadWithoutATenantIsAnsweredWithAnErrorResult() {
    McpSyncClient anonymous = client(null);
    try {
      for (String tool : List.of("get_story", "get_session", "publish_story", "start_session")) {
        CallToolResult result =
            anonymous.callTool(
                call(
                    tool,
                    "slug",
                    "s",
                    "session_id",
                    "s",
                    "title",
                    "t",
                    "body",
                    "b",
                    "started_at",
                    "2025-06-01T13:00:00Z"));
        assertThat(result.isError()).as(tool).isTrue();
        @SuppressWarnings("unchecked")
        Map<String, Object> error =
            (Map<String, Object>) ((Map<String, Object>) result.structuredContent()).get("error");
        assertThat(error).as(tool).containsEntry("type", "tenant_unknown");
      }
    } finally {
      anonymous.closeGracefully();
    }
  }

  @Test
  void stopSessionSaysOneThingAboutOpId() {
    McpSchema.Tool stop =
        client.listTools().tools().stream()
            .filter(t -> t.name().equals("stop_session"))
            .findFirst()
            .orElseThrow();
    @SuppressWarnings("unchecked")
    Map<String, Object> opId =
        (Map<String, Object>)
            ((Map<String, Object>) stop.inputSchema().get("properties")).get("op_id");

    assertThat(stop.description())
        .contains("do not invent one")
        .doesNotContain("new unique value")
        .doesNotContain("Use a new op_id");
    assertThat(opId.get("description").toString())
        .contains("Do not invent one")
        .doesNotContain("new unique value");
  }
}
