package dev.mcpgate.examples.spring;

import dev.mcpgate.mcp.GatedClaim;
import dev.mcpgate.mcp.Idempotent;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import java.sql.PreparedStatement;
import org.springframework.ai.mcp.annotation.McpTool;
import org.springframework.ai.mcp.annotation.McpToolParam;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.support.GeneratedKeyHolder;
import org.springframework.jdbc.support.KeyHolder;
import org.springframework.stereotype.Component;
import org.springframework.transaction.annotation.Transactional;

/**
 * The server's tools: two writes, gated with {@code @Idempotent}, and a read, marked read-only. A
 * refund is a row in the application's own table; a retried call with the same key returns the
 * first refund instead of writing a second row.
 */
@Component
public class RefundTools {
  private final JdbcTemplate jdbc;

  public RefundTools(JdbcTemplate jdbc) {
    this.jdbc = jdbc;
    jdbc.execute(
        "CREATE TABLE IF NOT EXISTS refunds (id IDENTITY PRIMARY KEY,"
            + " order_id VARCHAR(64) NOT NULL, amount_cents INT NOT NULL)");
  }

  /** Refunds an order: one row per call that runs. */
  @McpTool(name = "refund_order", description = "Refund part or all of an order")
  @Idempotent
  @Transactional
  public String refund(
      @McpToolParam(description = "the order id") String orderId,
      @McpToolParam(description = "the amount in cents") int amountCents) {
    // the id of this call's row, from the insert itself (a SELECT MAX(id) after it could read
    // another call's row under load)
    KeyHolder id = new GeneratedKeyHolder();
    jdbc.update(
        c -> {
          PreparedStatement insert =
              c.prepareStatement(
                  "INSERT INTO refunds (order_id, amount_cents) VALUES (?, ?)",
                  new String[] {"id"});
          insert.setString(1, orderId);
          insert.setInt(2, amountCents);
          return insert;
        },
        id);
    return "refund " + id.getKey().longValue() + ": " + amountCents + " cents for " + orderId;
  }

  /** Sends a receipt; a mail provider would get the downstream key as its message id. */
  @McpTool(name = "send_receipt", description = "Mail the receipt of an order")
  @Idempotent(retention = "PT2H")
  public String sendReceipt(
      CallToolRequest request, @McpToolParam(description = "the order id") String orderId) {
    String messageId = GatedClaim.of(request).map(c -> c.downstreamKey()).orElse("ungated");
    return "receipt for " + orderId + " sent as " + messageId;
  }

  /** How many refunds an order has: a read. */
  @McpTool(
      name = "count_refunds",
      description = "Count the refunds of an order",
      annotations = @McpTool.McpAnnotations(readOnlyHint = true))
  public int countRefunds(@McpToolParam(description = "the order id") String orderId) {
    Integer n =
        jdbc.queryForObject(
            "SELECT COUNT(*) FROM refunds WHERE order_id = ?", Integer.class, orderId);
    return n == null ? 0 : n;
  }
}
