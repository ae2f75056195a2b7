package dev.mcpgate.quarkus.deployment;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.mcp.Idempotent;
import dev.mcpgate.mcp.KeySource;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.HttpClientSseClientTransport;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.spec.McpClientTransport;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import io.modelcontextprotocol.spec.McpSchema.TextContent;
import io.quarkiverse.mcp.server.Tool;
import io.quarkiverse.mcp.server.ToolArg;
import io.quarkiverse.mcp.server.ToolResponse;
import io.quarkus.test.QuarkusUnitTest;
import java.net.http.HttpRequest;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.eclipse.microprofile.config.ConfigProvider;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code KeySource.HEADER} over Streamable HTTP: the {@code Idempotency-Key} header of the POST
 * that carries a call is its key, so a call sent again with the same header is answered from the
 * first, and one without the header is refused for want of a key, nothing run.
 */
class HeaderKeyTest {

  @RegisterExtension
  static final QuarkusUnitTest APP =
      new QuarkusUnitTest()
          .withApplicationRoot(jar -> jar.addClasses(MailTools.class))
          .overrideConfigKey("quarkus.devservices.enabled", "false")
          .overrideConfigKey("mcpgate.store", "memory")
          .overrideConfigKey("mcpgate.tenant.constant", "header-test")
          .overrideConfigKey("quarkus.http.test-port", "0");

  /** The header the client sends with its next requests; null sends none. */
  private static final AtomicReference<String> HEADER = new AtomicReference<>();

  private static McpSyncClient client;
  private static McpSyncClient sseClient;

  private static String base() {
    return "http://127.0.0.1:"
        + ConfigProvider.getConfig().getValue("quarkus.http.test-port", Integer.class);
  }

  /** Adds the header, when one is set, to each HTTP request a client sends. */
  private static void addHeader(HttpRequest.Builder request) {
    String key = HEADER.get();
    if (key != null) {
      request.header(KeySource.HEADER_CONTEXT_KEY, key);
    }
  }

  private static McpSyncClient connect(McpClientTransport transport) {
    McpSyncClient c = McpClient.sync(transport).requestTimeout(Duration.ofSeconds(30)).build();
    c.initialize();
    return c;
  }

  /** A client of Streamable HTTP, whose calls are POSTs to {@code /mcp}. */
  private static McpSyncClient client() {
    if (client == null) {
      client =
          connect(
              HttpClientStreamableHttpTransport.builder(base())
                  .endpoint("/mcp")
                  .httpRequestCustomizer((b, method, uri, body, ctx) -> addHeader(b))
                  .build());
    }
    return client;
  }

  /** A client of the older HTTP+SSE transport, whose calls are POSTs to its messages endpoint. */
  private static McpSyncClient sseClient() {
    if (sseClient == null) {
      sseClient =
          connect(
              HttpClientSseClientTransport.builder(base())
                  .sseEndpoint("/mcp/sse")
                  .httpRequestCustomizer((b, method, uri, body, ctx) -> addHeader(b))
                  .build());
    }
    return sseClient;
  }

  @AfterAll
  static void close() {
    if (client != null) {
      client.closeGracefully();
    }
    if (sseClient != null) {
      sseClient.closeGracefully();
    }
  }

  private static CallToolResult send(String to, String key) {
    HEADER.set(key);
    try {
      return client().callTool(new CallToolRequest("send_mail", Map.of("to", to)));
    } finally {
      HEADER.set(null);
    }
  }

  @Test
  void overSseTheHeaderOfEachMessagesPostIsTheKey() {
    McpSyncClient sse = sseClient(); // the SSE stream opened without a header
    int before = MailTools.SENT.get();
    HEADER.set("sse-mail-1");
    CallToolResult first;
    CallToolResult again;
    try {
      first = sse.callTool(new CallToolRequest("send_mail", Map.of("to", "cy@example.com")));
      again = sse.callTool(new CallToolRequest("send_mail", Map.of("to", "cy@example.com")));
    } finally {
      HEADER.set(null);
    }
    assertThat(first.isError()).as("first: %s", first).isFalse();
    assertThat(text(again)).isEqualTo(text(first));
    CallToolResult none = sse.callTool(new CallToolRequest("send_mail", Map.of("to", "cy@x.org")));
    assertThat(none.isError()).as("no header: %s", none).isTrue();
    assertThat(MailTools.SENT.get() - before).as("mails sent over SSE").isEqualTo(1);
  }

  private static String text(CallToolResult result) {
    return ((TextContent) result.content().get(0)).text();
  }

  @Test
  void theHeaderIsTheKey() {
    client(); // initialized without a header
    int before = MailTools.SENT.get();
    CallToolResult first = send("ana@example.com", "mail-1");
    CallToolResult again = send("ana@example.com", "mail-1");
    assertThat(first.isError()).as("first: %s", first).isFalse();
    assertThat(text(again)).isEqualTo(text(first));
    assertThat(MailTools.SENT.get() - before).as("mails sent for one header").isEqualTo(1);

    CallToolResult other = send("ana@example.com", "mail-2");
    assertThat(other.isError()).as("another key: %s", other).isFalse();
    assertThat(text(other)).isNotEqualTo(text(first));
    assertThat(MailTools.SENT.get() - before).as("mails sent for two headers").isEqualTo(2);
  }

  @Test
  void aCallWithoutTheHeaderIsRefusedAndRunsNothing() {
    int before = MailTools.SENT.get();
    CallToolResult none = send("bo@example.com", null);
    assertThat(none.isError()).as("no header: %s", none).isTrue();
    assertThat(text(none)).contains(KeySource.HEADER_CONTEXT_KEY);
    assertThat(none.toString()).contains("idempotency_key_required");
    assertThat(MailTools.SENT.get()).isEqualTo(before);
  }

  /** A mail tool whose key comes from the Idempotency-Key header only. */
  public static class MailTools {
    static final AtomicInteger SENT = new AtomicInteger();

    @Tool(name = "send_mail", annotations = @Tool.Annotations(idempotentHint = true))
    @Idempotent(keySources = KeySource.HEADER)
    ToolResponse send(@ToolArg(name = "to") String to) {
      return ToolResponse.success("mail " + SENT.incrementAndGet() + " sent to " + to);
    }
  }
}
