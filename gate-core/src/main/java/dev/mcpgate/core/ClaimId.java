package dev.mcpgate.core;

import static dev.mcpgate.core.internal.Checks.quote;

/**
 * What a claim is identified by: (tenant, tool, key). Uniqueness is never global: two tenants may
 * use the same key, and so may two tools.
 *
 * <p>All three parts are kept exactly as given (not trimmed, not hashed): operators need the raw
 * key. Each must be 1 to 255 characters (Unicode code points: at most 510 UTF-16 units and 1,020
 * UTF-8 bytes, which every store's schema holds), valid Unicode (no lone UTF-16 surrogate, which no
 * store and no UTF-8 encoding could keep apart from another), not blank (not only white space, the
 * no-break spaces, and invisible format characters such as U+200B and U+FEFF), with no control
 * characters.
 *
 * @param tenant who the call belongs to; always from the server side, never from tool arguments
 * @param tool the tool name
 * @param key the idempotency key, as the caller sent it
 */
public record ClaimId(String tenant, String tool, String key) {

  /** The longest key, tenant or tool name accepted, in characters (Unicode code points). */
  public static final int MAX_LENGTH = 255;

  /**
   * @throws InvalidIdempotencyKeyException naming the part that is missing or malformed
   */
  public ClaimId {
    validate(tenant, "tenant");
    validate(tool, "tool");
    validate(key, "idempotency key");
  }

  /**
   * Checks a key (or tenant, or tool name) against the rules and returns it unchanged.
   *
   * @param value the value to check
   * @param what what the value is, for the message ("idempotency key")
   * @return value, unchanged
   * @throws InvalidIdempotencyKeyException naming the value and the rule it breaks
   */
  public static String validate(String value, String what) {
    return validate(value, what, true);
  }

  /**
   * Checks a value against the same rules as {@link #validate(String, String)}, with a message that
   * names the rule and never the value (nor any part of it): for a key that is kept only as its
   * digest ({@link KeyDigest}), whose clear value may be personal data.
   *
   * @param value the value to check
   * @param what what the value is, for the message ("idempotency key")
   * @return value, unchanged
   * @throws InvalidIdempotencyKeyException naming the rule it breaks, not the value
   */
  public static String validateWithoutEcho(String value, String what) {
    return validate(value, what, false);
  }

  private static String validate(String value, String what, boolean echo) {
    if (value == null) {
      throw new InvalidIdempotencyKeyException(what + " is required but was not given", true);
    }
    if (value.isEmpty()) {
      throw new InvalidIdempotencyKeyException(what + " must not be empty", true);
    }
    int codePoints = value.codePointCount(0, value.length());
    if (codePoints > MAX_LENGTH) {
      throw new InvalidIdempotencyKeyException(
          what
              + " must be at most "
              + MAX_LENGTH
              + " characters, was "
              + codePoints
              + echoed(value, echo),
          false);
    }
    boolean blank = true;
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      if (Character.isISOControl(c)) {
        throw new InvalidIdempotencyKeyException(
            what
                + " must not contain control characters (found U+"
                + String.format("%04X", (int) c)
                + " at index "
                + i
                + ")"
                + echoed(value, echo),
            false);
      }
      int codePoint = c;
      if (Character.isHighSurrogate(c)
          && i + 1 < value.length()
          && Character.isLowSurrogate(value.charAt(i + 1))) {
        codePoint = Character.toCodePoint(c, value.charAt(++i)); // one character outside the BMP
      } else if (Character.isSurrogate(c)) {
        throw new InvalidIdempotencyKeyException(
            what
                + " must be valid Unicode (found a lone UTF-16 surrogate U+"
                + String.format("%04X", (int) c)
                + " at index "
                + i
                + ")"
                + echoed(value, echo),
            false);
      }
      blank = blank && invisible(codePoint);
    }
    if (blank) {
      throw new InvalidIdempotencyKeyException(
          what + " must not be blank" + echoed(value, echo), false);
    }
    return value;
  }

  /** Whitespace, or a zero-width format character: nothing a reader sees. */
  private static boolean invisible(int codePoint) {
    return Character.isWhitespace(codePoint)
        || Character.isSpaceChar(codePoint)
        || Character.getType(codePoint) == Character.FORMAT;
  }

  private static String echoed(String value, boolean echo) {
    return echo ? ": " + quote(value) : "";
  }

  /**
   * How the gate's messages (and {@link #toString()}) quote a tenant, tool or key: in double
   * quotes, cut after 80 characters (never inside one), with what could forge or hide text escaped
   * ({@code "}, {@code \}, control and format characters, line separators, lone surrogates).
   *
   * @param value a caller's value, or null
   * @return the value quoted
   */
  public static String quoted(String value) {
    return quote(value);
  }

  @Override
  public String toString() {
    return "(" + quote(tenant) + ", " + quote(tool) + ", " + quote(key) + ")";
  }
}
