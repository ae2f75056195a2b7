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

  /**
   * Renders a user-supplied value for an error message: quoted, cut after 80 characters (code
   * points, never inside one), with what could forge or hide text in a log escaped as {@code
   * \\uXXXX}: control characters, format characters (bidirectional overrides, zero-width ones),
   * line and paragraph separators and lone surrogates; {@code "} and {@code \\} escaped too.
   */
  public static String quote(String value) {
    if (value == null) {
      return "null";
    }
    int total = value.codePointCount(0, value.length());
    StringBuilder sb = new StringBuilder(Math.min(value.length(), 160) + 8).append('"');
    int shown = 0;
    for (int i = 0; i < value.length() && shown < 80; shown++) {
      int c = value.codePointAt(i);
      i += Character.charCount(c);
      int type = Character.getType(c);
      if (type == Character.CONTROL
          || type == Character.FORMAT
          || type == Character.LINE_SEPARATOR
          || type == Character.PARAGRAPH_SEPARATOR
          || type == Character.SURROGATE) {
        for (char unit : Character.toChars(c)) { // past the BMP: its two UTF-16 units
          sb.append(String.format("\\u%04x", (int) unit));
        }
      } else if (c == '"' || c == '\\') {
        sb.append('\\').append((char) c);
      } else {
        sb.appendCodePoint(c);
      }
    }
    sb.append('"');
    if (total > shown) {
      sb.append("... (").append(total).append(" characters)");
    }
    return sb.toString();
  }
}
