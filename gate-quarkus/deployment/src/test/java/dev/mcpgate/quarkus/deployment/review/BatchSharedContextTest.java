package dev.mcpgate.quarkus.deployment.review;

import static org.assertj.core.api.Assertions.assertThat;

import io.quarkus.test.QuarkusUnitTest;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.UUID;
import org.eclipse.microprofile.config.ConfigProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Review N (passes: sound). Two tools/call of the same gated tool in one JSON-RPC batch (protocol
 * 2025-03-26, Streamable HTTP), each its own intent with its own _meta key, same arguments (two
 * payments of the same order). Each must run once under its own key.
 */
class BatchSharedContextTest {
  @RegisterExtension
  static final QuarkusUnitTest APP =
      new QuarkusUnitTest()
          .withApplicationRoot(jar -> jar.addClasses(BatchTools.class, Runs.class))
          .overrideConfigKey("quarkus.devservices.enabled", "false")
          .overrideConfigKey("quarkus.http.test-port", "0")
          .overrideConfigKey("mcpgate.store", "memory")
          .overrideConfigKey("mcpgate.tenant.constant", "review-n-batch");

  @Test
  void twoCallsOfOneBatchRunEachUnderItsOwnKey() throws Exception {
    int port = ConfigProvider.getConfig().getValue("quarkus.http.test-port", Integer.class);
    URI mcp = URI.create("http://127.0.0.1:" + port + "/mcp");
    HttpClient http = HttpClient.newHttpClient();
    HttpResponse<String> init =
        http.send(
            post(mcp, null)
                .POST(
                    HttpRequest.BodyPublishers.ofString(
                        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{"
                            + "\"protocolVersion\":\"2025-03-26\",\"capabilities\":{},"
                            + "\"clientInfo\":{\"name\":\"review-n\",\"version\":\"1\"}}}"))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    String session = init.headers().firstValue("Mcp-Session-Id").orElseThrow();
    http.send(
        post(mcp, session)
            .POST(
                HttpRequest.BodyPublishers.ofString(
                    "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}"))
            .build(),
        HttpResponse.BodyHandlers.ofString());
    String order = UUID.randomUUID().toString();
    String k1 = "k1-" + UUID.randomUUID();
    String k2 = "k2-" + UUID.randomUUID();
    String batch = "[" + call(2, order, k1) + "," + call(3, order, k2) + "]";
    HttpResponse<String> answer =
        http.send(
            post(mcp, session).POST(HttpRequest.BodyPublishers.ofString(batch)).build(),
            HttpResponse.BodyHandlers.ofString());
    // the answers may come on the stream: wait for both runs' time
    Thread.sleep(1500);
    assertThat(BatchTools.runs(order))
        .as("runs of two intents with two keys; answer %s %s", answer.statusCode(), answer.body())
        .isEqualTo(2);
  }

  private static String call(int id, String order, String key) {
    return "{\"jsonrpc\":\"2.0\",\"id\":"
        + id
        + ",\"method\":\"tools/call\",\"params\":{\"name\":\"pay\",\"arguments\":{\"order_id\":\""
        + order
        + "\"},\"_meta\":{\"dev.mcpgate/idempotency-key\":\""
        + key
        + "\"}}}";
  }

  private static HttpRequest.Builder post(URI uri, String session) {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(uri)
            .header("Content-Type", "application/json")
            .header("Accept", "application/json, text/event-stream");
    return session == null ? b : b.header("Mcp-Session-Id", session);
  }
}
