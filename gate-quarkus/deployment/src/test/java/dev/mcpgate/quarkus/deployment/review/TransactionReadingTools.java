package dev.mcpgate.quarkus.deployment.review;

import dev.mcpgate.mcp.Idempotent;
import io.quarkiverse.mcp.server.Tool;
import io.quarkiverse.mcp.server.ToolArg;
import io.quarkiverse.mcp.server.ToolResponse;
import jakarta.inject.Inject;
import jakarta.transaction.TransactionManager;
import jakarta.transaction.Transactional;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import javax.sql.DataSource;

/** Review Y: gated tools whose transactions the gate must tell apart. */
@jakarta.enterprise.context.ApplicationScoped
public class TransactionReadingTools {
  @Inject DataSource db;
  @Inject TransactionManager tm;
  @Inject TransactionReadingTools self;

  /**
   * Calls itself once (through its proxy) in a transaction of its own (REQUIRES_NEW); the inner
   * invocation charges nothing and rolls its transaction back without a word; the outer one charges
   * and commits.
   */
  @Tool(description = "Charges an order.", annotations = @Tool.Annotations(idempotentHint = true))
  @Idempotent
  @Transactional(Transactional.TxType.REQUIRES_NEW)
  public ToolResponse chargeCallingItself(
      @ToolArg(name = "order_id") String orderId,
      @ToolArg(name = "idempotency_key", required = false) String idempotencyKey)
      throws Exception {
    if (idempotencyKey == null) { // the inner invocation
      tm.setRollbackOnly();
      return ToolResponse.success("inner");
    }
    insert(orderId);
    self.chargeCallingItself(orderId, null);
    return ToolResponse.success("charged " + orderId);
  }

  /**
   * Its transaction ends after the time limiter gave up: the charge commits some 900 ms after the
   * gate was told the call failed.
   */
  @Tool(description = "Charges an order.", annotations = @Tool.Annotations(idempotentHint = true))
  @Idempotent
  @AbandoningTimeout
  @Transactional
  public ToolResponse chargeSlowly(
      @ToolArg(name = "order_id") String orderId,
      @ToolArg(name = "idempotency_key", required = false) String idempotencyKey)
      throws Exception {
    return chargeAndWait(orderId);
  }

  /** {@link #chargeSlowly}, but the time limiter throws when it gives up. */
  @Tool(description = "Charges an order.", annotations = @Tool.Annotations(idempotentHint = true))
  @Idempotent
  @AbandoningTimeout
  @Transactional
  public ToolResponse chargeSlowlyThrowing(
      @ToolArg(name = "order_id") String orderId,
      @ToolArg(name = "idempotency_key", required = false) String idempotencyKey)
      throws Exception {
    return chargeAndWait(orderId);
  }

  /** Charges at once; the time limiter's thread begins it after the limiter gave up. */
  @Tool(description = "Charges an order.", annotations = @Tool.Annotations(idempotentHint = true))
  @Idempotent
  @AbandoningTimeout
  @Transactional
  public ToolResponse chargeLate(
      @ToolArg(name = "order_id") String orderId,
      @ToolArg(name = "idempotency_key", required = false) String idempotencyKey)
      throws Exception {
    insert(orderId);
    return ToolResponse.success("charged " + orderId);
  }

  private ToolResponse chargeAndWait(String orderId) throws Exception {
    insert(orderId);
    Thread.sleep(900);
    return ToolResponse.success("charged " + orderId);
  }

  void insert(String orderId) throws SQLException {
    try (Connection c = db.getConnection();
        PreparedStatement st =
            c.prepareStatement(
                "INSERT INTO " + TransactionReadingReviewTest.TABLE + " VALUES (?)")) {
      st.setString(1, orderId);
      st.executeUpdate();
    }
  }
}
