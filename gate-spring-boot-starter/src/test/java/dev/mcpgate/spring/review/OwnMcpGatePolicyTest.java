package dev.mcpgate.spring.review;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.core.GatePolicy;
import dev.mcpgate.core.IdempotencyGate;
import dev.mcpgate.core.memory.InMemoryIdempotencyStore;
import dev.mcpgate.mcp.Idempotent;
import dev.mcpgate.mcp.McpGate;
import dev.mcpgate.mcp.TenantResolver;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.util.List;
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
 * An application's own {@link McpGate} bean around a gate that is not a bean, whose policy names
 * the payment provider's timeout as an unknown outcome. The starter asked the auto-configured
 * gate's policy (the defaults) instead, so the tool's timeout was answered as a failure, the key
 * released, and the retry refunded again. It asks the policy of the gate the tools are gated by.
 */
class OwnMcpGatePolicyTest {
  static final AtomicInteger REFUNDS = new AtomicInteger();

  /** What the payment provider's client throws when its answer does not come in time. */
  static final class ProviderTimeout extends RuntimeException {
    private static final long serialVersionUID = 1L;

    ProviderTimeout() {
      super("the payment provider did not answer in time");
    }
  }

  public static class Tools {
    @McpTool(name = "refund_order", description = "Refund an order")
    @Idempotent
    public String refund(@McpToolParam(description = "the order") String orderId) {
      REFUNDS.incrementAndGet(); // the provider took the refund; its answer was lost
      throw new ProviderTimeout();
    }
  }

  @EnableAutoConfiguration
  @Import(ReviewApps.OpenSecurity.class)
  public static class Server {
    @Bean
    McpGate mcpGate(TenantResolver tenants) {
      IdempotencyGate gate =
          IdempotencyGate.builder(InMemoryIdempotencyStore.create())
              .policy(
                  GatePolicy.defaults().toBuilder()
                      .outcomeUnknownWhen(t -> t instanceof ProviderTimeout)
                      .build())
              .build();
      return McpGate.builder(gate).tenantResolver(tenants).build();
    }

    @Bean
    Tools tools() {
      return new Tools();
    }
  }

  @Test
  void theOwnGatesPolicyDecidesAnUnknownOutcome() {
    int before = REFUNDS.get();
    try (ConfigurableApplicationContext app = ReviewApps.memoryServer(Server.class)) {
      List<CallToolResult> answers =
          ReviewApps.sameCallTwice(app, "refund_order", Map.of("orderId", "o-1"), "k-own-gate");
      assertThat(REFUNDS.get() - before)
          .as("refunds: first=%s retry=%s", answers.get(0), answers.get(1))
          .isEqualTo(1);
      assertThat(String.valueOf(answers.get(1).structuredContent()))
          .contains("idempotency_outcome_unknown");
    }
  }
}
