package dev.mcpgate.quarkus.deployment.review;

import dev.mcpgate.mcp.Idempotent;
import io.quarkiverse.mcp.server.Tool;
import io.quarkiverse.mcp.server.ToolArg;
import io.quarkiverse.mcp.server.ToolResponse;

/** A gated charge tool, also called from Java by ReviewOrders. */
public class ReviewCharges {
  @Tool(description = "Charges an account.", annotations = @Tool.Annotations(idempotentHint = true))
  @Idempotent
  public ToolResponse charge(
      @ToolArg(name = "account") String account,
      @ToolArg(name = "amount_cents") long amountCents,
      @ToolArg(name = "idempotency_key", required = false) String idempotencyKey) {
    return ToolResponse.success(
        "charged " + amountCents + " (charge " + ReviewTools.ran("charge:" + account) + ")");
  }
}
