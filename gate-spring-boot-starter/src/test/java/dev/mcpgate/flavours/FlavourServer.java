package dev.mcpgate.flavours;

import dev.mcpgate.mcp.Idempotent;
import java.util.concurrent.atomic.AtomicInteger;
import org.springframework.ai.mcp.annotation.McpTool;
import org.springframework.ai.mcp.annotation.McpToolParam;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.web.SecurityFilterChain;
import reactor.core.publisher.Mono;

/**
 * A Spring AI MCP server with one gated write tool, {@code refund_order}, and one read marked
 * read-only, as sync ({@link SyncTools}) or async ({@link AsyncTools}) methods: Spring AI makes
 * sync or async, stateful or stateless specifications of them as its properties say. No component
 * scan: the test says which tools bean the application gets.
 */
@SpringBootConfiguration
@EnableAutoConfiguration
public class FlavourServer {
  static final AtomicInteger REFUNDS = new AtomicInteger();

  /** Open to all (Spring Security is on the tests' class path); the tenant is a header. */
  @Bean
  SecurityFilterChain open(HttpSecurity http) throws Exception {
    return http.csrf(c -> c.disable())
        .authorizeHttpRequests(a -> a.anyRequest().permitAll())
        .build();
  }

  static String refund(String orderId, int cents) {
    return "refund " + REFUNDS.incrementAndGet() + " of " + cents + " cents for " + orderId;
  }

  /** The tools as sync methods. */
  public static class SyncTools {
    @McpTool(name = "refund_order", description = "Refund an order")
    @Idempotent
    public String refund(
        @McpToolParam(description = "the order") String orderId,
        @McpToolParam(description = "the amount in cents") int amountCents) {
      return FlavourServer.refund(orderId, amountCents);
    }

    @McpTool(
        name = "get_order",
        description = "Read an order",
        annotations = @McpTool.McpAnnotations(readOnlyHint = true))
    public String getOrder(@McpToolParam(description = "the order") String orderId) {
      return "order " + orderId;
    }
  }

  /** The tools as async methods. */
  public static class AsyncTools {
    @McpTool(name = "refund_order", description = "Refund an order")
    @Idempotent
    public Mono<String> refund(
        @McpToolParam(description = "the order") String orderId,
        @McpToolParam(description = "the amount in cents") int amountCents) {
      return Mono.fromSupplier(() -> FlavourServer.refund(orderId, amountCents));
    }

    @McpTool(
        name = "get_order",
        description = "Read an order",
        annotations = @McpTool.McpAnnotations(readOnlyHint = true))
    public Mono<String> getOrder(@McpToolParam(description = "the order") String orderId) {
      return Mono.just("order " + orderId);
    }
  }
}
