package dev.mcpgate.boot3;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.core.GateResult;
import dev.mcpgate.core.IdempotencyGate;
import dev.mcpgate.core.ResultMapper;
import dev.mcpgate.core.ToolCall;
import dev.mcpgate.core.memory.InMemoryIdempotencyStore;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.springaicommunity.mcp.annotation.McpTool;
import org.springaicommunity.mcp.annotation.McpToolParam;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;

/**
 * What the starter's refusal advises on Spring Boot 3: no starter and no adapter (this test's class
 * path has neither, nor the MCP SDK 2 they bring), and gate-core's {@link IdempotencyGate} around
 * the tool's body. A real Spring AI 1.1 MCP server, called twice with one key over Streamable
 * HTTP, runs the body once.
 */
class GateCoreByHandTest {
  static final AtomicInteger SENT = new AtomicInteger();

  @SpringBootConfiguration
  @EnableAutoConfiguration
  static class MailServer {
    @Bean(destroyMethod = "close")
    IdempotencyGate gate() {
      return IdempotencyGate.builder(InMemoryIdempotencyStore.create()).build();
    }

    @Bean
    MailTools mailTools(IdempotencyGate gate) {
      return new MailTools(gate);
    }
  }

  /** The tool takes its key as an argument and hands its body to the gate. */
  static class MailTools {
    private final IdempotencyGate gate;

    MailTools(IdempotencyGate gate) {
      this.gate = gate;
    }

    @McpTool(name = "send_mail", description = "Send a mail; the same key when retrying one")
    public String send(
        @McpToolParam(description = "to whom") String to,
        @McpToolParam(description = "a fresh key per mail, the same on a retry")
            String idempotencyKey) {
      GateResult<String> result =
          gate.execute(
              ToolCall.of("demo", "send_mail", idempotencyKey, Map.of("to", to)),
              ResultMapper.utf8(),
              ctx -> "mail " + SENT.incrementAndGet() + " to " + to);
      return result.orThrow();
    }
  }

  @Test
  void aRetryWithTheSameKeyGetsTheFirstMailAndSendsNone() throws Exception {
    try (ConfigurableApplicationContext app =
        new SpringApplicationBuilder(MailServer.class)
            .properties(
                "server.port=0",
                "spring.main.banner-mode=off",
                "spring.ai.mcp.server.protocol=STREAMABLE")
            .run()) {
      Mcp mcp = new Mcp(((WebServerApplicationContext) app).getWebServer().getPort());
      String call =
          "{\"name\":\"send_mail\",\"arguments\":{\"to\":\"ann\",\"idempotencyKey\":\"k-1\"}}";
      String first = mcp.request("tools/call", call);
      String retry = mcp.request("tools/call", call);

      assertThat(first).contains("mail 1 to ann").doesNotContain("\"isError\":true");
      assertThat(retry).contains("mail 1 to ann").doesNotContain("\"isError\":true");
      assertThat(SENT).hasValue(1);
    }
  }

  /**
   * A bare Streamable HTTP client: the SDK's own client classes are of two lines on this module's
   * compile class path (Spring AI 1.1's 0.17 and the adapter's 2.x), so this test speaks JSON-RPC
   * itself rather than compile against the wrong one.
   */
  static final class Mcp {
    private final HttpClient http = HttpClient.newHttpClient();
    private final URI endpoint;
    private final String session;
    private int id;

    Mcp(int port) throws Exception {
      endpoint = URI.create("http://127.0.0.1:" + port + "/mcp");
      HttpResponse<String> init =
          post(
              null,
              "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":"
                  + "{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},"
                  + "\"clientInfo\":{\"name\":\"test\",\"version\":\"1\"}}}");
      assertThat(init.statusCode()).as(init.body()).isEqualTo(200);
      session = init.headers().firstValue("Mcp-Session-Id").orElse(null);
      post(session, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");
    }

    String request(String method, String params) throws Exception {
      HttpResponse<String> response =
          post(
              session,
              "{\"jsonrpc\":\"2.0\",\"id\":"
                  + (++id)
                  + ",\"method\":\""
                  + method
                  + "\",\"params\":"
                  + params
                  + "}");
      assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
      return response.body();
    }

    private HttpResponse<String> post(String session, String body) throws Exception {
      HttpRequest.Builder request =
          HttpRequest.newBuilder(endpoint)
              .header("Content-Type", "application/json")
              .header("Accept", "application/json, text/event-stream")
              .POST(HttpRequest.BodyPublishers.ofString(body));
      if (session != null) {
        request.header("Mcp-Session-Id", session);
      }
      return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }
  }
}
