package dev.mcpgate.quarkus.deployment.review;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.mcp.Idempotent;
import dev.mcpgate.mcp.KeySource;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import io.quarkiverse.mcp.server.Tool;
import io.quarkiverse.mcp.server.ToolArg;
import io.quarkiverse.mcp.server.ToolResponse;
import io.quarkus.test.QuarkusUnitTest;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.eclipse.microprofile.config.ConfigProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Review (low): a POST that carries the Idempotency-Key header twice, with two different values, is
 * gated under the first value (HeaderKey: request().getHeader, the first of the values), the other
 * silently dropped. The adapter refuses a call whose key sources disagree as ambiguous ("which one
 * the client reuses on a retry is unknowable", KeyExtractor); two values of the one header are the
 * same ambiguity (the IETF draft's header is a single sf-string). A retry whose client or proxy
 * sends the two in the other order runs the effect a second time. Expected: the call is refused as
 * an invalid key (nothing run).
 */
class HeaderTwiceReviewTest {

  @RegisterExtension
  static final QuarkusUnitTest APP =
      new QuarkusUnitTest()
          .withApplicationRoot(jar -> jar.addClasses(Mail.class))
          .overrideConfigKey("quarkus.devservices.enabled", "false")
          .overrideConfigKey("quarkus.http.test-port", "0")
          .overrideConfigKey("mcpgate.store", "memory")
          .overrideConfigKey("mcpgate.tenant.constant", "header-twice");

  /** The values of the Idempotency-Key header the client sends next, in order. */
  static final AtomicReference<List<String>> KEYS = new AtomicReference<>(List.of());

  /** A mail tool keyed by the header only. */
  public static class Mail {
    static final AtomicInteger SENT = new AtomicInteger();

    @Tool(name = "send_mail", annotations = @Tool.Annotations(idempotentHint = true))
    @Idempotent(keySources = KeySource.HEADER)
    ToolResponse send(@ToolArg(name = "to") String to) {
      return ToolResponse.success("mail " + SENT.incrementAndGet() + " sent to " + to);
    }
  }

  @Test
  void twoDifferentHeaderValuesAreRefusedAsAmbiguous() {
    int port = ConfigProvider.getConfig().getValue("quarkus.http.test-port", Integer.class);
    McpSyncClient client =
        McpClient.sync(
                HttpClientStreamableHttpTransport.builder("http://127.0.0.1:" + port)
                    .endpoint("/mcp")
                    .httpRequestCustomizer(
                        (b, method, uri, body, ctx) -> {
                          for (String key : KEYS.get()) {
                            b.header(KeySource.HEADER_CONTEXT_KEY, key); // adds, not replaces
                          }
                        })
                    .build())
            .requestTimeout(Duration.ofSeconds(30))
            .build();
    client.initialize();
    try {
      String a = UUID.randomUUID().toString();
      String b = UUID.randomUUID().toString();
      KEYS.set(List.of(a, b));
      CallToolResult first = client.callTool(new CallToolRequest("send_mail", Map.of("to", "x")));
      KEYS.set(List.of(b, a)); // the same two keys, in the other order
      CallToolResult retry = client.callTool(new CallToolRequest("send_mail", Map.of("to", "x")));
      assertThat(Mail.SENT.get()).as("mails sent: %s / %s", first, retry).isZero();
      assertThat(first.isError()).as("first: %s", first).isTrue();
    } finally {
      KEYS.set(List.of());
      client.closeGracefully();
    }
  }
}
