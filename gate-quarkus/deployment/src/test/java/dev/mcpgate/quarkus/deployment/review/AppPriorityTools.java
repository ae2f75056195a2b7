package dev.mcpgate.quarkus.deployment.review;

import dev.mcpgate.mcp.Idempotent;
import io.quarkiverse.mcp.server.Tool;
import io.quarkiverse.mcp.server.ToolArg;
import io.quarkiverse.mcp.server.ToolResponse;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.PreparedStatement;
import javax.sql.DataSource;

/** Review AB: a gated tool behind a time limiter at the application's priority. */
@jakarta.enterprise.context.ApplicationScoped
public class AppPriorityTools {
  @Inject DataSource db;

  /** A slow downstream step, then an auto-committed charge. */
  @Tool(description = "Charges an order.", annotations = @Tool.Annotations(idempotentHint = true))
  @Idempotent
  @AppPriorityTimeout
  public ToolResponse chargeAppPriority(
      @ToolArg(name = "order_id") String orderId,
      @ToolArg(name = "idempotency_key", required = false) String idempotencyKey)
      throws Exception {
    Thread.sleep(600);
    try (Connection c = db.getConnection();
        PreparedStatement st =
            c.prepareStatement(
                "INSERT INTO " + AppPriorityAbandonedReviewTest.TABLE + " VALUES (?)")) {
      st.setString(1, orderId);
      st.executeUpdate();
    }
    return ToolResponse.success("charged " + orderId);
  }
}
