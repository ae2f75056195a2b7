package dev.mcpgate.mcp;

import static java.util.Objects.requireNonNull;

import dev.mcpgate.core.ResultMapper;
import io.modelcontextprotocol.json.McpJsonMapper;
import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * Stores an action's results as JSON, written and read with the SDK's {@link McpJsonMapper}, so it
 * works on the server's own Jackson line (2 or 3) and adds none.
 *
 * <pre>{@code
 * gate.execute(call, JsonResultMapper.of(McpJsonDefaults.getMapper(), Refund.class), ctx -> ...);
 * }</pre>
 *
 * @param <T> the result type
 */
public final class JsonResultMapper<T> implements ResultMapper<T> {
  private final McpJsonMapper mapper;
  private final Class<T> type;

  private JsonResultMapper(McpJsonMapper mapper, Class<T> type) {
    this.mapper = mapper;
    this.type = type;
  }

  /**
   * @param mapper the JSON mapper to write and read with
   * @param type the result type
   * @return a mapper that stores results of {@code type} as JSON
   */
  public static <T> JsonResultMapper<T> of(McpJsonMapper mapper, Class<T> type) {
    return new JsonResultMapper<>(
        requireNonNull(mapper, "mapper must not be null"),
        requireNonNull(type, "type must not be null"));
  }

  @Override
  public byte[] toBytes(T value) {
    try {
      return mapper.writeValueAsBytes(value);
    } catch (IOException | RuntimeException e) {
      throw new UncheckedIOException(
          "cannot write " + type.getName() + " as JSON",
          e instanceof IOException io ? io : new IOException(e));
    }
  }

  @Override
  public T fromBytes(byte[] bytes) {
    try {
      return mapper.readValue(bytes, type);
    } catch (IOException | RuntimeException e) {
      throw new UncheckedIOException(
          "cannot read stored JSON as " + type.getName(),
          e instanceof IOException io ? io : new IOException(e));
    }
  }
}
