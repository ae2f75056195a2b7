package dev.mcpgate.quarkus.deployment.review;

import dev.mcpgate.mcp.Idempotent;
import io.quarkiverse.mcp.server.Tool;
import io.quarkiverse.mcp.server.ToolArg;
import io.quarkiverse.mcp.server.ToolResponse;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.transaction.Transactional;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import javax.sql.DataSource;

/**
 * A gated, transactional tool that writes its charge, then calls a transactional audit bean that
 * fails (a RuntimeException marks the shared transaction rollback-only); the tool catches that
 * failure ("the audit is best effort") and returns success.
 */
public class SilentRollbackTools {
  @Inject DataSource db;
  @Inject Audit audit;

  /** A best-effort audit, in the caller's transaction (REQUIRED). */
  @ApplicationScoped
  public static class Audit {
    @Transactional
    public void record(String orderId) {
      throw new IllegalStateException("audit table full");
    }
  }

  @Tool(description = "Charges an order.", annotations = @Tool.Annotations(idempotentHint = true))
  @Idempotent
  @Transactional
  public ToolResponse chargeAudited(
      @ToolArg(name = "order_id") String orderId,
      @ToolArg(name = "idempotency_key", required = false) String idempotencyKey)
      throws SQLException {
    try (Connection c = db.getConnection();
        PreparedStatement st =
            c.prepareStatement(
                "INSERT INTO " + CommittingFailureReviewTest.TABLE + " VALUES (?)")) {
      st.setString(1, orderId);
      st.executeUpdate();
    }
    try {
      audit.record(orderId);
    } catch (RuntimeException e) {
      // best effort
    }
    return ToolResponse.success("charged " + orderId);
  }
}
