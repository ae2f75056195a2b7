package dev.mcpgate.core;

import java.nio.charset.StandardCharsets;

/**
 * Turns an action's result into the bytes that are stored, and back for a replay; and says whether
 * a result is a failure (see {@link GatePolicy.FailureMode}). For JSON results, the MCP adapter's
 * {@code JsonResultMapper} stores them with the SDK's JSON mapper, of either Jackson line.
 *
 * @param <T> the result type
 */
public interface ResultMapper<T> {

  /**
   * @return the bytes to store for value
   */
  byte[] toBytes(T value);

  /**
   * @return the value that bytes stand for
   */
  T fromBytes(byte[] bytes);

  /**
   * @param value a result of the action
   * @return true when value is a failure result (an MCP {@code isError} result); false by default
   */
  default boolean isFailure(T value) {
    return false;
  }

  /**
   * @return a mapper that stores byte arrays as they are
   */
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

  /**
   * @return a mapper that stores strings as UTF-8
   */
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
}
