package dev.mcpgate.spring;

import dev.mcpgate.mcp.Idempotent;
import java.util.concurrent.atomic.AtomicInteger;
import org.springframework.ai.mcp.annotation.McpTool;
import org.springframework.ai.mcp.annotation.McpToolParam;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;
import org.springframework.transaction.annotation.Transactional;

/**
 * A Spring AI MCP server as a user writes one: {@code @McpTool} methods on a bean, one marked
 * {@code @Idempotent}. The bean is {@code @Transactional}, so Spring hands out a proxy of it.
 */
@SpringBootApplication
public class RefundServer {

  /** Open to all (Spring Security is on the tests' class path); the tenant is the header. */
  @org.springframework.context.annotation.Bean
  org.springframework.security.web.SecurityFilterChain open(
      org.springframework.security.config.annotation.web.builders.HttpSecurity http)
      throws Exception {
    return http.csrf(c -> c.disable())
        .authorizeHttpRequests(a -> a.anyRequest().permitAll())
        .build();
  }

  /** The server's tools. */
  @Component
  @Transactional
  public static class RefundTools {
    static final AtomicInteger REFUNDS = new AtomicInteger();
    static final AtomicInteger NOTES = new AtomicInteger();
    private final JdbcTemplate jdbc;

    public RefundTools(JdbcTemplate jdbc) {
      this.jdbc = jdbc;
    }

    @McpTool(name = "refund_order", description = "Refund an order")
    @Idempotent
    public String refund(
        @McpToolParam(description = "the order") String orderId,
        @McpToolParam(description = "the amount in cents") int amountCents) {
      int n = REFUNDS.incrementAndGet();
      jdbc.queryForObject("SELECT 1", Integer.class); // a write's transaction, as a real one has
      return "refund " + n + " of " + amountCents + " cents for " + orderId;
    }

    static final AtomicInteger CHARGES = new AtomicInteger();

    /** A gated tool that takes a decimal: exact only with mcpgate.exact-numbers=true. */
    @McpTool(name = "charge_card", description = "Charge a card")
    @Idempotent
    public String charge(
        @McpToolParam(description = "the card") String card,
        @McpToolParam(description = "the amount") java.math.BigDecimal amount) {
      return "charge " + CHARGES.incrementAndGet() + " of " + amount + " to " + card;
    }

    @McpTool(name = "add_note", description = "Add a note to an order")
    public String addNote(@McpToolParam(description = "the note") String text) {
      return "note " + NOTES.incrementAndGet() + ": " + text;
    }

    @McpTool(
        name = "get_order",
        description = "Read an order",
        annotations = @McpTool.McpAnnotations(readOnlyHint = true))
    public String getOrder(@McpToolParam(description = "the order") String orderId) {
      return "order " + orderId;
    }
  }
}
