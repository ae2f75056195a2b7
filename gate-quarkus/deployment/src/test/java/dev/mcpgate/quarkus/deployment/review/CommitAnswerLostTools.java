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

/** A gated, transactional tool whose effect is a row in the application's own database. */
public class CommitAnswerLostTools {
  @Inject DataSource db;

  @Tool(
      description = "Charges an order: one row per charge.",
      annotations = @Tool.Annotations(idempotentHint = true))
  @Idempotent
  @Transactional
  public ToolResponse charge(
      @ToolArg(name = "order_id") String orderId,
      @ToolArg(name = "idempotency_key", required = false) String idempotencyKey)
      throws SQLException {
    try (Connection c = db.getConnection();
        PreparedStatement st =
            c.prepareStatement("INSERT INTO " + CommitAnswerLostReviewTest.TABLE + " VALUES (?)")) {
      st.setString(1, orderId);
      st.executeUpdate();
    }
    // the first run's COMMIT reaches PostgreSQL, and its answer is lost on the way back
    CommitAnswerLostReviewTest.PROXY.cutAfterNextCommitOnce();
    return ToolResponse.success("charged " + orderId);
  }
}
