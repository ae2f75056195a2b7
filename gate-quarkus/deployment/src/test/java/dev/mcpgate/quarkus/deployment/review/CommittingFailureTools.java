package dev.mcpgate.quarkus.deployment.review;

import dev.mcpgate.mcp.Idempotent;
import io.quarkiverse.mcp.server.Tool;
import io.quarkiverse.mcp.server.ToolArg;
import io.quarkiverse.mcp.server.ToolResponse;
import jakarta.inject.Inject;
import jakarta.transaction.Transactional;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import javax.sql.DataSource;

/**
 * Gated, transactional tools that write their effect (a row) and then throw an exception under
 * which JTA's {@code @Transactional} commits: a checked exception (the Jakarta Transactions
 * default), or a runtime exception named in {@code dontRollbackOn}.
 */
public class CommittingFailureTools {
  @Inject DataSource db;

  /** A checked business exception: {@code @Transactional} commits before it propagates. */
  public static class NotifyFailedException extends Exception {
    private static final long serialVersionUID = 1L;

    public NotifyFailedException(String message) {
      super(message);
    }
  }

  @Tool(
      description = "Charges an order, then notifies (which fails with a checked exception).",
      annotations = @Tool.Annotations(idempotentHint = true))
  @Idempotent
  @Transactional
  public ToolResponse chargeChecked(
      @ToolArg(name = "order_id") String orderId,
      @ToolArg(name = "idempotency_key", required = false) String idempotencyKey)
      throws SQLException, NotifyFailedException {
    insert(orderId);
    throw new NotifyFailedException("the receipt could not be sent for " + orderId);
  }

  @Tool(
      description = "Charges an order; a notification failure does not roll the charge back.",
      annotations = @Tool.Annotations(idempotentHint = true))
  @Idempotent
  @Transactional(dontRollbackOn = IllegalStateException.class)
  public ToolResponse chargeDontRollback(
      @ToolArg(name = "order_id") String orderId,
      @ToolArg(name = "idempotency_key", required = false) String idempotencyKey)
      throws SQLException {
    insert(orderId);
    throw new IllegalStateException("the receipt could not be sent for " + orderId);
  }

  private void insert(String orderId) throws SQLException {
    try (Connection c = db.getConnection();
        PreparedStatement st =
            c.prepareStatement(
                "INSERT INTO " + CommittingFailureReviewTest.TABLE + " VALUES (?)")) {
      st.setString(1, orderId);
      st.executeUpdate();
    }
  }
}
