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

/** Review R: gated tools whose transaction window is not the gate's. */
public class TransactionWindowTools {
  @Inject DataSource db;

  /** A plain charge in a unit of work the application's interceptor opens (priority 100). */
  @Tool(description = "Charges an order.", annotations = @Tool.Annotations(idempotentHint = true))
  @Idempotent
  @UnitOfWork
  @Transactional
  public ToolResponse chargeInUnitOfWork(
      @ToolArg(name = "order_id") String orderId,
      @ToolArg(name = "idempotency_key", required = false) String idempotencyKey)
      throws SQLException {
    insert(orderId);
    return ToolResponse.success("charged " + orderId);
  }

  /**
   * Retried once outside its transaction on the checked ReceiptFailed: the first attempt charges
   * and throws it (JTA commits: the charge is kept); the second attempt's card check says declined,
   * as an error result of the tool's own.
   */
  @Tool(description = "Charges an order.", annotations = @Tool.Annotations(idempotentHint = true))
  @Idempotent
  @RetryOutsideTransaction
  @Transactional
  public ToolResponse chargeRetriedThenDeclined(
      @ToolArg(name = "order_id") String orderId,
      @ToolArg(name = "idempotency_key", required = false) String idempotencyKey)
      throws SQLException, TransactionOrderTools.ReceiptFailed {
    if (Runs.inc("declined:" + orderId) % 2 == 1) {
      insert(orderId);
      throw new TransactionOrderTools.ReceiptFailed("the receipt service is down for " + orderId);
    }
    return ToolResponse.error("the card was declined for " + orderId);
  }

  void insert(String orderId) throws SQLException {
    try (Connection c = db.getConnection();
        PreparedStatement st =
            c.prepareStatement(
                "INSERT INTO " + TransactionWindowReviewTest.TABLE + " VALUES (?)")) {
      st.setString(1, orderId);
      st.executeUpdate();
    }
  }
}
