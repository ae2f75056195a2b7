package dev.mcpgate.core;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.mcpgate.core.internal.Checks;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/**
 * Turns an action's result into the bytes that are stored, and back for a replay; and says
 * whether a result is a failure (see {@link GatePolicy.FailureMode}).
 *
 * @param <T> the result type
 */
public interface ResultMapper<T> {

  /** @return the bytes to store for value */
  byte[] toBytes(T value);

  /** @return the value that bytes stand for */
  T fromBytes(byte[] bytes);

  /**
   * @param value a result of the action
   * @return true when value is a failure result (an MCP {@code isError} result); false by default
   */
  default boolean isFailure(T value) {
    return false;
  }

  /** @return a mapper that stores byte arrays as they are */
  static ResultMapper<byte[]> bytes() {
    return new ResultMapper<>() {
      @Override
      public byte[] toBytes(byte[] value) {
        return value;
      }

      @Override
      public byte[] fromBytes(byte[] bytes) {
        return bytes;
      }
    };
  }

  /** @return a mapper that stores strings as UTF-8 */
  static ResultMapper<String> utf8() {
    return new ResultMapper<>() {
      @Override
      public byte[] toBytes(String value) {
        return value.getBytes(StandardCharsets.UTF_8);
      }

      @Override
      public String fromBytes(byte[] bytes) {
        return new String(bytes, StandardCharsets.UTF_8);
      }
    };
  }

  /**
   * @param mapper the Jackson mapper to write and read with
   * @param type the result type
   * @return a mapper that stores results as JSON
   */
  static <T> ResultMapper<T> json(ObjectMapper mapper, Class<T> type) {
    Checks.notNull(mapper, "mapper");
    Checks.notNull(type, "type");
    return new ResultMapper<>() {
      @Override
      public byte[] toBytes(T value) {
        try {
          return mapper.writeValueAsBytes(value);
        } catch (IOException e) {
          throw new UncheckedIOException("cannot write " + type.getName() + " as JSON", e);
        }
      }

      @Override
      public T fromBytes(byte[] bytes) {
        try {
          return mapper.readValue(bytes, type);
        } catch (IOException e) {
          throw new UncheckedIOException("cannot read stored JSON as " + type.getName(), e);
        }
      }
    };
  }
}
