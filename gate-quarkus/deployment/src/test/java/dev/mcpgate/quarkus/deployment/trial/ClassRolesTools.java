package dev.mcpgate.quarkus.deployment.trial;

import dev.mcpgate.mcp.Idempotent;
import io.quarkiverse.mcp.server.Tool;
import io.quarkiverse.mcp.server.ToolArg;
import io.quarkiverse.mcp.server.ToolResponse;
import jakarta.annotation.security.RolesAllowed;
import java.util.concurrent.atomic.AtomicInteger;

/** Gated tools only admins may call, by an annotation on the class. */
@RolesAllowed("admin")
public class ClassRolesTools {
  static final AtomicInteger RUNS = new AtomicInteger();

  @Tool(description = "Reveals a salary.", annotations = @Tool.Annotations(idempotentHint = true))
  @Idempotent
  ToolResponse salary(
      @ToolArg(name = "person") String person,
      @ToolArg(name = "idempotency_key", required = false) String idempotencyKey) {
    return ToolResponse.success(
        "salary of " + person + ": secret (run " + RUNS.incrementAndGet() + ")");
  }
}
