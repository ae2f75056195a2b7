package dev.mcpgate.examples.quarkus;

import dev.mcpgate.mcp.Idempotent;
import io.quarkiverse.mcp.server.Tool;
import io.quarkiverse.mcp.server.ToolArg;
import io.quarkiverse.mcp.server.ToolResponse;
import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;

/**
 * The server's tools: a write, gated with {@code @Idempotent}, and a read, marked read-only. A
 * refund is a row in the application's own table; a retried call with the same key returns the
 * first refund instead of writing a second row.
 */
public class RefundTools {
  @Inject DataSource db;

  void createTable(@Observes StartupEvent start) throws SQLException {
    try (Connection c = db.getConnection();
        Statement s = c.createStatement()) {
      s.execute(
          "CREATE TABLE IF NOT EXISTS refunds (id IDENTITY PRIMARY KEY,"
              + " order_id VARCHAR(64) NOT NULL, amount_cents INT NOT NULL)");
    }
  }

  /** Refunds an order: one row per call that runs. */
  @Tool(
      name = "refund_order",
      description = "Refund part or all of an order",
      annotations = @Tool.Annotations(idempotentHint = true))
  @Idempotent
  public ToolResponse refund(
      @ToolArg(name = "order_id", description = "the order id") String orderId,
      @ToolArg(name = "amount_cents", description = "the amount in cents, 1 to 100000000")
          int amountCents,
      @ToolArg(
              name = "idempotency_key",
              required = false,
              description = "A fresh key for each new refund; the same key when retrying one")
          String idempotencyKey)
      throws SQLException, InterruptedException {
    if (amountCents < 1 || amountCents > 100_000_000) {
      return ToolResponse.error(
          "amount_cents must be a whole number of cents from 1 to 100000000, not "
              + amountCents
              + "; nothing was refunded");
    }
    Thread.sleep(200); // a payment provider's round trip
    try (Connection c = db.getConnection();
        PreparedStatement insert =
            c.prepareStatement(
                "INSERT INTO refunds (order_id, amount_cents) VALUES (?, ?)",
                Statement.RETURN_GENERATED_KEYS)) {
      insert.setString(1, orderId);
      insert.setInt(2, amountCents);
      insert.executeUpdate();
      try (ResultSet id = insert.getGeneratedKeys()) {
        id.next();
        return ToolResponse.success(
            "refund " + id.getLong(1) + ": " + amountCents + " cents for " + orderId);
      }
    }
  }

  /** How many refunds an order has: a read. */
  @Tool(
      name = "count_refunds",
      description = "Count the refunds of an order",
      annotations = @Tool.Annotations(readOnlyHint = true))
  public String countRefunds(@ToolArg(name = "order_id") String orderId) throws SQLException {
    try (Connection c = db.getConnection();
        PreparedStatement count =
            c.prepareStatement("SELECT COUNT(*) FROM refunds WHERE order_id = ?")) {
      count.setString(1, orderId);
      try (ResultSet n = count.executeQuery()) {
        n.next();
        return Integer.toString(n.getInt(1));
      }
    }
  }
}
