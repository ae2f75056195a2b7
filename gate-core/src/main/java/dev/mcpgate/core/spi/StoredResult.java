package dev.mcpgate.core.spi;

import dev.mcpgate.core.internal.Checks;
import java.util.Arrays;

/**
 * A completed attempt's result as the store keeps it: encoded bytes (already passed through the
 * gate's {@link dev.mcpgate.core.ResultCodec}) and what kind of result they are.
 *
 * <p>The array is not copied, for speed: neither the store nor the caller may modify it.
 *
 * @param kind what the bytes are
 * @param body the encoded result; empty for {@link Kind#NOT_STORED}
 */
public record StoredResult(Kind kind, byte[] body) {

  /** What kind of result a completed row holds. */
  public enum Kind {
    /** A normal result. */
    VALUE,
    /** A failure result that the policy chose to store and replay. */
    FAILURE,
    /**
     * The action ran but its result was too large to store. Retries are refused, never run again.
     */
    NOT_STORED
  }

  /**
   * @throws NullPointerException if kind or body is null
   */
  public StoredResult {
    Checks.notNull(kind, "kind");
    Checks.notNull(body, "body");
  }

  /**
   * @return the marker stored for a result that was too large to keep
   */
  public static StoredResult notStored() {
    return new StoredResult(Kind.NOT_STORED, new byte[0]);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof StoredResult other && kind == other.kind && Arrays.equals(body, other.body);
  }

  @Override
  public int hashCode() {
    return 31 * kind.hashCode() + Arrays.hashCode(body);
  }

  @Override
  public String toString() {
    return "StoredResult[" + kind + ", " + body.length + " bytes]";
  }
}
