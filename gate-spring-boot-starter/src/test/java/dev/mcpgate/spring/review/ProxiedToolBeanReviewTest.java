package dev.mcpgate.spring.review;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.mcp.Idempotent;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.springframework.ai.mcp.annotation.McpTool;
import org.springframework.ai.mcp.annotation.McpToolParam;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;

/**
 * The starter now CGLIB-proxies every non-final bean class with an {@code @Idempotent} method. A
 * CGLIB proxy cannot override a final or a private method: Spring AI (which finds the tool methods
 * on the target class and makes them accessible) invokes such a method on the proxy instance, made
 * without a constructor, whose fields are all null. A tool that worked before the upgrade now fails
 * on every call.
 */
class ProxiedToolBeanReviewTest {

  /** Something the tools are given through the constructor. */
  public static class Ledger {
    final AtomicInteger refunds = new AtomicInteger();
  }

  public static class FinalMethodTools {
    private final Ledger ledger;

    public FinalMethodTools(Ledger ledger) {
      this.ledger = ledger;
    }

    @McpTool(name = "refund_final", description = "Refund an order")
    @Idempotent
    public final String refund(@McpToolParam(description = "the order") String orderId) {
      return "refund " + ledger.refunds.incrementAndGet() + " for " + orderId;
    }
  }

  public static class PrivateMethodTools {
    private final Ledger ledger;

    public PrivateMethodTools(Ledger ledger) {
      this.ledger = ledger;
    }

    @McpTool(name = "refund_private", description = "Refund an order")
    @Idempotent
    private String refund(@McpToolParam(description = "the order") String orderId) {
      return "refund " + ledger.refunds.incrementAndGet() + " for " + orderId;
    }
  }

  @EnableAutoConfiguration
  @Import(ReviewApps.OpenSecurity.class)
  public static class Server {
    @Bean
    Ledger ledger() {
      return new Ledger();
    }

    @Bean
    FinalMethodTools finalMethodTools(Ledger ledger) {
      return new FinalMethodTools(ledger);
    }

    @Bean
    PrivateMethodTools privateMethodTools(Ledger ledger) {
      return new PrivateMethodTools(ledger);
    }
  }

  @Test
  void aFinalOrPrivateIdempotentToolMethodStillRunsOnItsBean() {
    try (ConfigurableApplicationContext app = ReviewApps.memoryServer(Server.class)) {
      McpSyncClient client = ReviewApps.client(app);
      try {
        CallToolResult fin =
            client.callTool(
                CallToolRequest.builder()
                    .name("refund_final")
                    .arguments(Map.of("orderId", "o-1"))
                    .meta(Map.of("dev.mcpgate/idempotency-key", "k-final-1"))
                    .build());
        CallToolResult priv =
            client.callTool(
                CallToolRequest.builder()
                    .name("refund_private")
                    .arguments(Map.of("orderId", "o-2"))
                    .meta(Map.of("dev.mcpgate/idempotency-key", "k-private-1"))
                    .build());
        Ledger ledger = app.getBean(Ledger.class);
        assertThat(new Object[] {fin.isError(), priv.isError()})
            .as("final: %s%nprivate: %s", fin, priv)
            .doesNotContain(Boolean.TRUE);
        assertThat(ledger.refunds.get()).isEqualTo(2);
      } finally {
        client.closeGracefully();
      }
    }
  }
}
