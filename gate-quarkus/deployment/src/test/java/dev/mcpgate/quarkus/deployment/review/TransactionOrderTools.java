package dev.mcpgate.quarkus.deployment.review;

import dev.mcpgate.mcp.Idempotent;
import io.quarkiverse.mcp.server.TextContent;
import io.quarkiverse.mcp.server.Tool;
import io.quarkiverse.mcp.server.ToolArg;
import io.quarkiverse.mcp.server.ToolResponse;
import io.quarkus.narayana.jta.runtime.TransactionConfiguration;
import jakarta.inject.Inject;
import jakarta.transaction.Transactional;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import javax.sql.DataSource;

/**
 * Gated {@code @Transactional} tools whose transaction is not simply the method's one: retried by
 * an interceptor outside it, timed out by the reaper, REQUIRES_NEW, bound on the class; and an
 * ungated tool that calls a gated one inside its own transaction.
 */
public class TransactionOrderTools {
  @Inject DataSource db;

  /** A checked failure after the charge: the receipt could not be sent. */
  public static class ReceiptFailed extends Exception {
    private static final long serialVersionUID = 1L;

    public ReceiptFailed(String message) {
      super(message);
    }
  }

  /**
   * Each call's first attempt charges and then fails with a checked exception (JTA commits: the
   * charge is kept), which the retry retries; the second attempt finds the order in an unexpected
   * state and throws a RuntimeException (its own transaction rolls back, with nothing in it).
   */
  @Tool(description = "Charges an order.", annotations = @Tool.Annotations(idempotentHint = true))
  @Idempotent
  @RetryOutsideTransaction
  @Transactional
  public ToolResponse chargeRetried(
      @ToolArg(name = "order_id") String orderId,
      @ToolArg(name = "idempotency_key", required = false) String idempotencyKey)
      throws SQLException, ReceiptFailed {
    if (Runs.inc("retried:" + orderId) % 2 == 1) {
      insert(orderId);
      throw new ReceiptFailed("the receipt service is down for " + orderId);
    }
    throw new IllegalStateException("order " + orderId + " is in an unexpected state");
  }

  /** Charges, then takes longer than its transaction's timeout (1 s), then charges a fee. */
  @Tool(description = "Charges an order.", annotations = @Tool.Annotations(idempotentHint = true))
  @Idempotent
  @Transactional
  @TransactionConfiguration(timeout = 1)
  public ToolResponse chargeSlow(
      @ToolArg(name = "order_id") String orderId,
      @ToolArg(name = "idempotency_key", required = false) String idempotencyKey)
      throws Exception {
    insert(orderId);
    Thread.sleep(2500); // the reaper rolls the transaction back meanwhile
    insert(orderId); // the fee: written after the transaction timed out
    return ToolResponse.success("charged " + orderId);
  }

  /** Its own REQUIRES_NEW transaction commits on the checked exception. */
  @Tool(description = "Charges an order.", annotations = @Tool.Annotations(idempotentHint = true))
  @Idempotent
  @Transactional(Transactional.TxType.REQUIRES_NEW)
  public ToolResponse chargeRequiresNew(
      @ToolArg(name = "order_id") String orderId,
      @ToolArg(name = "idempotency_key", required = false) String idempotencyKey)
      throws SQLException, ReceiptFailed {
    insert(orderId);
    throw new ReceiptFailed("the receipt service is down for " + orderId);
  }

  /** A plain charge, in its own transaction or the caller's. */
  @Tool(description = "Charges an order.", annotations = @Tool.Annotations(idempotentHint = true))
  @Idempotent
  @Transactional
  public ToolResponse charge(
      @ToolArg(name = "order_id") String orderId,
      @ToolArg(name = "idempotency_key", required = false) String idempotencyKey)
      throws SQLException {
    insert(orderId);
    return ToolResponse.success("charged " + orderId);
  }

  void insert(String orderId) throws SQLException {
    insert(db, orderId);
  }

  static void insert(DataSource db, String orderId) throws SQLException {
    try (Connection c = db.getConnection();
        PreparedStatement st =
            c.prepareStatement("INSERT INTO " + TransactionOrderReviewTest.TABLE + " VALUES (?)")) {
      st.setString(1, orderId);
      st.executeUpdate();
    }
  }

  /** {@code @Transactional} on the class, none on the method. */
  @Transactional
  public static class ClassTransactional {
    @Inject DataSource db;

    @Tool(description = "Charges an order.", annotations = @Tool.Annotations(idempotentHint = true))
    @Idempotent
    public ToolResponse chargeClassTx(
        @ToolArg(name = "order_id") String orderId,
        @ToolArg(name = "idempotency_key", required = false) String idempotencyKey)
        throws SQLException, ReceiptFailed {
      insert(db, orderId);
      throw new ReceiptFailed("the receipt service is down for " + orderId);
    }
  }

  /**
   * An ordering tool, not gated itself (an order placed twice is caught downstream), that charges
   * through the gated {@code charge} inside its own transaction, under a key of the order's. Its
   * first run fails after the charge (the stock check), which rolls the whole transaction back, the
   * charge with it; its second run succeeds.
   */
  public static class Orders {
    @Inject TransactionOrderTools charges;

    @Tool(description = "Places an order, not gated itself.")
    @Transactional
    public ToolResponse placeOrder(@ToolArg(name = "order_id") String orderId) throws Exception {
      ToolResponse charged = charges.charge(orderId, "charge-" + orderId);
      String said = ((TextContent) charged.content().get(0)).text();
      if (charged.isError()) {
        return ToolResponse.error("the order was not placed: the charge said: " + said);
      }
      if (Runs.inc("place:" + orderId) == 1) {
        throw new IllegalStateException("the stock check failed for " + orderId);
      }
      return ToolResponse.success("order placed; the charge said: " + said);
    }
  }
}
