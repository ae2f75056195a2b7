package dev.mcpgate.quarkus.deployment.review;

import dev.mcpgate.mcp.Idempotent;
import io.quarkiverse.mcp.server.Tool;
import io.quarkiverse.mcp.server.ToolArg;
import io.quarkiverse.mcp.server.ToolResponse;

/** A gated tool that runs longer than its lease. */
public class LongTools {
  @Tool(
      description = "Exports a report; takes three leases' time.",
      annotations = @Tool.Annotations(idempotentHint = true))
  @Idempotent(lease = "PT2S", inFlightWait = "PT20S")
  ToolResponse export(
      @ToolArg(name = "report") String report,
      @ToolArg(name = "idempotency_key", required = false) String idempotencyKey)
      throws InterruptedException {
    int n = ReviewTools.ran(report);
    Thread.sleep(6000);
    return ToolResponse.success("exported " + report + " (run " + n + ")");
  }
}
