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
   * @param bytes the stored bytes; not to be changed, nor handed out as they are where the caller
   *     could change them: every replay of a key may be given the same array
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
   * @return a mapper that stores byte arrays as they are, copied each way: the array the action
   *     returned and the array a replay hands out are the caller's own, and changing either changes
   *     nothing the store or a later replay holds (a store in memory, or a near-cache, hands every
   *     replay the same stored bytes)
   */
  static ResultMapper<byte[]> bytes() {
    return new ResultMapper<>() {
      @Override
      public byte[] toBytes(byte[] value) {
        return value.clone();
      }

      @Override
      public byte[] fromBytes(byte[] bytes) {
        return bytes.clone();
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
