package dev.mcpgate.quarkus.deployment.review;

import dev.mcpgate.mcp.Idempotent;
import io.quarkiverse.mcp.server.Tool;
import io.quarkiverse.mcp.server.ToolArg;
import io.quarkiverse.mcp.server.ToolResponse;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.PreparedStatement;
import javax.sql.DataSource;

/** Review AA: a gated tool that is not @Transactional behind the abandoning time limiter. */
@jakarta.enterprise.context.ApplicationScoped
public class AbandonedPlainTools {
  @Inject DataSource db;

  /** A slow downstream step, then an auto-committed charge: no transaction to count. */
  @Tool(description = "Charges an order.", annotations = @Tool.Annotations(idempotentHint = true))
  @Idempotent
  @AbandoningTimeout
  public ToolResponse chargePlainSlowly(
      @ToolArg(name = "order_id") String orderId,
      @ToolArg(name = "idempotency_key", required = false) String idempotencyKey)
      throws Exception {
    Thread.sleep(600);
    try (Connection c = db.getConnection();
        PreparedStatement st =
            c.prepareStatement("INSERT INTO " + AbandonedPlainReviewTest.TABLE + " VALUES (?)")) {
      st.setString(1, orderId);
      st.executeUpdate();
    }
    return ToolResponse.success("charged " + orderId);
  }
}
