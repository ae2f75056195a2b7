package dev.mcpgate.spring.trial;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.mcp.Idempotent;
import dev.mcpgate.mcp.KeySource;
import dev.mcpgate.mcp.McpGateErrors;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import io.modelcontextprotocol.spec.McpSchema.TextContent;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.ai.mcp.annotation.McpTool;
import org.springframework.ai.mcp.annotation.McpToolParam;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * docs/adapters.md, the Spring Boot starter's cells that no starter test pinned: {@code tools/list}
 * shows {@code idempotentHint} and the retry sentence ("added"), the key from {@code _meta}
 * ("yes"), the natural key ("yes") and the replay's {@code _meta} ("the same": {@code
 * dev.mcpgate/replayed} and {@code first-executed-at}); docs/spring-boot.md adds that Spring AI's
 * other hints are kept ({@code destructiveHint=true}, {@code openWorldHint=true}).
 */
class ListingAndKeySourcesThroughSpringTest {
  private static ConfigurableApplicationContext app;
  private static McpSyncClient client;

  /** A refund keyed by the default sources, and a session stop keyed by its session. */
  public static class Tools {
    static final AtomicInteger REFUNDS = new AtomicInteger();
    static final AtomicInteger STOPS = new AtomicInteger();

    @McpTool(name = "refund_order", description = "Refund an order")
    @Idempotent
    public String refund(@McpToolParam(description = "the order") String orderId) {
      return "refund " + REFUNDS.incrementAndGet() + " for " + orderId;
    }

    @McpTool(name = "stop_session", description = "Stop a session")
    @Idempotent(keySources = KeySource.NATURAL, naturalKey = "sessionId")
    public String stop(@McpToolParam(description = "the session") String sessionId) {
      return "stop " + STOPS.incrementAndGet() + " of " + sessionId;
    }
  }

  @BeforeAll
  static void start() {
    app = TrialServer.server(Tools.class).run();
    client = TrialServer.client(app, Map.of());
  }

  @AfterAll
  static void stop() {
    if (client != null) {
      client.closeGracefully();
    }
    if (app != null) {
      app.close();
    }
  }

  private static String text(CallToolResult r) {
    return ((TextContent) r.content().get(0)).text();
  }

  private static McpSchema.Tool listed(String name) {
    return client.listTools().tools().stream()
        .filter(t -> t.name().equals(name))
        .findFirst()
        .orElseThrow();
  }

  @Test
  void theListingShowsTheHintTheSentenceAndSpringAisOtherHints() {
    McpSchema.Tool refund = listed("refund_order");
    assertThat(refund.annotations().idempotentHint()).isTrue();
    assertThat(refund.annotations().destructiveHint()).isTrue();
    assertThat(refund.annotations().openWorldHint()).isTrue();
    assertThat(refund.description())
        .startsWith("Refund an order")
        .contains(
            "If this call fails or times out, retry it with the same idempotency_key and the same"
                + " arguments");
    assertThat(listed("stop_session").description())
        .contains("Calls with the same sessionId are done once");
  }

  @Test
  void aKeyInMetaReplaysWithTheFirstExecutionsTime() {
    CallToolRequest call =
        CallToolRequest.builder()
            .name("refund_order")
            .arguments(Map.of("orderId", "o-1"))
            .meta(Map.of(McpGateErrors.META_KEY, "meta-k-1"))
            .build();
    CallToolResult first = client.callTool(call);
    CallToolResult retry = client.callTool(call);

    assertThat(first.isError()).as(text(first)).isNotEqualTo(Boolean.TRUE);
    assertThat(text(retry)).isEqualTo(text(first));
    assertThat(retry.meta())
        .containsEntry("dev.mcpgate/replayed", true)
        .containsKey("dev.mcpgate/first-executed-at");
    assertThat(first.meta() == null || !first.meta().containsKey("dev.mcpgate/replayed")).isTrue();
  }

  @Test
  void theNaturalKeyStopsTheSessionOnce() {
    int before = Tools.STOPS.get();
    CallToolRequest stop = new CallToolRequest("stop_session", Map.of("sessionId", "s-42"));
    CallToolResult first = client.callTool(stop);
    CallToolResult again = client.callTool(stop);

    assertThat(first.isError()).as(text(first)).isNotEqualTo(Boolean.TRUE);
    assertThat(text(again)).isEqualTo(text(first));
    assertThat(Tools.STOPS.get()).isEqualTo(before + 1);
  }
}
