package dev.mcpgate.quarkus.deployment.review;

import dev.mcpgate.mcp.Idempotent;
import io.quarkiverse.mcp.server.Tool;
import io.quarkiverse.mcp.server.ToolArg;
import io.quarkiverse.mcp.server.ToolResponse;
import jakarta.inject.Inject;

/** An order tool that charges each of its lines through the (gated) charge tool of another bean. */
public class ReviewOrders {
  @Inject ReviewCharges charges;

  @Tool(
      description = "Places an order of two lines of the same price.",
      annotations = @Tool.Annotations(idempotentHint = true))
  @Idempotent
  ToolResponse order(
      @ToolArg(name = "account") String account,
      @ToolArg(name = "line_cents") long lineCents,
      @ToolArg(name = "idempotency_key", required = false) String idempotencyKey) {
    ToolResponse first = charges.charge(account, lineCents, null);
    ToolResponse second = charges.charge(account, lineCents, null);
    return ToolResponse.success(
        "ordered: "
            + ((io.quarkiverse.mcp.server.TextContent) first.content().get(0)).text()
            + "; "
            + ((io.quarkiverse.mcp.server.TextContent) second.content().get(0)).text());
  }
}
