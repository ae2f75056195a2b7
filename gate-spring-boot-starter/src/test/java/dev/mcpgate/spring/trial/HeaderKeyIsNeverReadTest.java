package dev.mcpgate.spring.trial;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.mcp.Idempotent;
import dev.mcpgate.mcp.KeySource;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import io.modelcontextprotocol.spec.McpSchema.TextContent;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.springframework.ai.mcp.annotation.McpTool;
import org.springframework.ai.mcp.annotation.McpToolParam;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * docs/adapters.md, row "key from an HTTP header": the Spring Boot starter, "yes" (and
 * docs/spring-boot.md lists {@code header} among the values of {@code mcpgate.key-sources}).
 *
 * <p>The adapter reads {@code KeySource.HEADER} from the MCP transport context, where the HTTP
 * transport's context extractor must have copied the {@code Idempotency-Key} header ({@code
 * KeySource.copyHeader}). Spring AI's WebMVC transports keep the SDK's default extractor (the empty
 * context), and nothing in the starter copies the header (on WebFlux its wrapped extractor adds the
 * tenant only). What happens: a call to a tool keyed by the header, sent with the header, is
 * refused {@code idempotency_key_required}, and the tool never runs.
 */
class HeaderKeyIsNeverReadTest {

  /** A mail tool keyed by the Idempotency-Key header only. */
  public static class HeaderKeyedTools {
    static final AtomicInteger SENT = new AtomicInteger();

    @McpTool(name = "send_mail", description = "Send a mail")
    @Idempotent(keySources = KeySource.HEADER)
    public String send(@McpToolParam(description = "to whom") String to) {
      return "mail " + SENT.incrementAndGet() + " to " + to;
    }
  }

  private static String text(CallToolResult r) {
    return ((TextContent) r.content().get(0)).text();
  }

  @Test
  void aRetryWithTheSameIdempotencyKeyHeaderReplaysTheFirstMail() {
    try (ConfigurableApplicationContext app = TrialServer.server(HeaderKeyedTools.class).run()) {
      McpSyncClient client = TrialServer.client(app, Map.of("Idempotency-Key", "mail-k-1"));
      try {
        int before = HeaderKeyedTools.SENT.get();
        CallToolRequest call = new CallToolRequest("send_mail", Map.of("to", "ann"));
        CallToolResult first = client.callTool(call);
        CallToolResult retry = client.callTool(call);

        assertThat(first.isError())
            .as("the first call, with the header, runs: %s", text(first))
            .isNotEqualTo(Boolean.TRUE);
        assertThat(text(retry)).isEqualTo(text(first));
        assertThat(retry.meta()).containsEntry("dev.mcpgate/replayed", true);
        assertThat(HeaderKeyedTools.SENT.get()).isEqualTo(before + 1);
      } finally {
        client.closeGracefully();
      }
    }
  }
}
