package dev.mcpgate.core.internal;

import dev.mcpgate.core.spi.StoreArguments;
import java.time.Duration;

/**
 * Argument checks that name the argument in their message, for gate-core's own classes; not API
 * (see the package). The other modules use the JDK ({@code Objects.requireNonNull(value, "value
 * must not be null")}) and, for a store's durations, {@link StoreArguments}.
 */
public final class Checks {
  private Checks() {}

  /**
   * @return value, when it is not null
   * @throws NullPointerException naming {@code name}
   */
  public static <T> T notNull(T value, String name) {
    if (value == null) {
      throw new NullPointerException(name + " must not be null");
    }
    return value;
  }

  /**
   * @return duration, when it is at least one millisecond; the same check as the SPI's {@link
   *     StoreArguments#atLeastOneMs}
   * @throws IllegalArgumentException naming {@code name} and the value
   */
  public static Duration positiveMillis(Duration duration, String name) {
    return StoreArguments.atLeastOneMs(duration, name);
  }

  /**
   * @return duration, when it is zero or positive
   * @throws IllegalArgumentException naming {@code name} and the value
   */
  public static Duration notNegative(Duration duration, String name) {
    notNull(duration, name);
    if (duration.isNegative()) {
      throw new IllegalArgumentException(name + " must not be negative, was " + duration);
    }
    return duration;
  }

  /** Renders a user-supplied value for an error message: quoted, escaped, and cut to 80 chars. */
  public static String quote(String value) {
    if (value == null) {
      return "null";
    }
    StringBuilder sb = new StringBuilder(Math.min(value.length(), 80) + 8).append('"');
    int n = Math.min(value.length(), 80);
    for (int i = 0; i < n; i++) {
      char c = value.charAt(i);
      if (c < 0x20 || c == 0x7f || (c >= 0x80 && c < 0xa0)) {
        sb.append(String.format("\\u%04x", (int) c));
      } else if (c == '"' || c == '\\') {
        sb.append('\\').append(c);
      } else {
        sb.append(c);
      }
    }
    sb.append('"');
    if (value.length() > n) {
      sb.append("... (").append(value.length()).append(" chars)");
    }
    return sb.toString();
  }
}
