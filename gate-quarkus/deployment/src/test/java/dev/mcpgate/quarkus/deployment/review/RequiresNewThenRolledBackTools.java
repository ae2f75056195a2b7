package dev.mcpgate.quarkus.deployment.review;

import dev.mcpgate.mcp.Idempotent;
import io.quarkiverse.mcp.server.Tool;
import io.quarkiverse.mcp.server.ToolArg;
import io.quarkiverse.mcp.server.ToolResponse;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.transaction.TransactionManager;
import jakarta.transaction.Transactional;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import javax.sql.DataSource;

/**
 * A gated, transactional tool that charges through a ledger bean in a transaction of its own
 * (REQUIRES_NEW: committed at once), then rolls its own transaction back (a later, local step
 * failed) and answers that it charged; and one that rolls back and answers an error of its own.
 */
public class RequiresNewThenRolledBackTools {
  @Inject Ledger ledger;
  @Inject TransactionManager tm;

  /** Commits each charge on its own (an outbox, a ledger). */
  @ApplicationScoped
  public static class Ledger {
    @Inject DataSource db;

    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public void charge(String orderId) throws SQLException {
      try (Connection c = db.getConnection();
          PreparedStatement st =
              c.prepareStatement(
                  "INSERT INTO " + RequiresNewThenRolledBackReviewTest.TABLE + " VALUES (?)")) {
        st.setString(1, orderId);
        st.executeUpdate();
      }
    }
  }

  @Tool(description = "Charges an order.", annotations = @Tool.Annotations(idempotentHint = true))
  @Idempotent
  @Transactional
  public ToolResponse chargeViaLedger(
      @ToolArg(name = "order_id") String orderId,
      @ToolArg(name = "idempotency_key", required = false) String idempotencyKey)
      throws Exception {
    ledger.charge(orderId);
    tm.setRollbackOnly(); // local bookkeeping failed: undo it, the charge itself stands
    return ToolResponse.success("charged " + orderId);
  }

  @Tool(description = "Declines an order.", annotations = @Tool.Annotations(idempotentHint = true))
  @Idempotent
  @Transactional
  public ToolResponse declineRolledBack(
      @ToolArg(name = "order_id") String orderId,
      @ToolArg(name = "idempotency_key", required = false) String idempotencyKey)
      throws Exception {
    Runs.inc(orderId);
    tm.setRollbackOnly(); // what it wrote is undone, and it says it failed
    return ToolResponse.error("declined " + orderId + ": nothing was charged");
  }
}
