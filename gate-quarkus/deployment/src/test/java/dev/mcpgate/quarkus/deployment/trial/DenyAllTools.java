package dev.mcpgate.quarkus.deployment.trial;

import dev.mcpgate.mcp.Idempotent;
import io.quarkiverse.mcp.server.Tool;
import io.quarkiverse.mcp.server.ToolArg;
import io.quarkiverse.mcp.server.ToolResponse;
import io.quarkus.security.Authenticated;
import jakarta.annotation.security.DenyAll;
import java.util.concurrent.atomic.AtomicInteger;

/** A gated tool no one may call, and one only an authenticated caller may call. */
public class DenyAllTools {
  static final AtomicInteger CLOSED = new AtomicInteger();
  static final AtomicInteger NOTES = new AtomicInteger();

  @Tool(description = "Closes the books.", annotations = @Tool.Annotations(idempotentHint = true))
  @Idempotent
  @DenyAll
  ToolResponse closeBooks(
      @ToolArg(name = "year") String year,
      @ToolArg(name = "idempotency_key", required = false) String idempotencyKey) {
    return ToolResponse.success("closed " + year + " (run " + CLOSED.incrementAndGet() + ")");
  }

  @Tool(description = "Files a note.", annotations = @Tool.Annotations(idempotentHint = true))
  @Idempotent
  @Authenticated
  ToolResponse fileNote(
      @ToolArg(name = "text") String text,
      @ToolArg(name = "idempotency_key", required = false) String idempotencyKey) {
    return ToolResponse.success("note filed, private ref 77 (run " + NOTES.incrementAndGet() + ")");
  }
}
