package dev.mcpgate.mcp;

import dev.mcpgate.core.IdempotencyException;
import dev.mcpgate.core.ResultMapper;
import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * Stores {@link CallToolResult}s as JSON through the SDK's own mapper (Jackson 2 or 3); an {@code
 * isError} result is a failure result.
 */
final class CallToolResultMapper implements ResultMapper<CallToolResult> {
  private final McpJsonMapper json;

  CallToolResultMapper(McpJsonMapper json) {
    this.json = json;
  }

  @Override
  public byte[] toBytes(CallToolResult value) {
    try {
      return json.writeValueAsBytes(value);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write the tool result as JSON", e);
    }
  }

  @Override
  public CallToolResult fromBytes(byte[] bytes) {
    try {
      return json.readValue(bytes, CallToolResult.class);
    } catch (IOException e) {
      throw new IdempotencyException("cannot read a stored tool result", e);
    }
  }

  @Override
  public boolean isFailure(CallToolResult value) {
    return value != null && Boolean.TRUE.equals(value.isError());
  }
}
