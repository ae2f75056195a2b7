package dev.mcpgate.client;

import static java.util.Objects.requireNonNull;

import java.util.UUID;

/**
 * The idempotency key of one intent: every attempt of the intent carries it, and no other intent
 * does. Keep it with the intent (in the caller's own records) when the outcome is not known, so
 * that a later retry, or a person settling it, uses the same key.
 *
 * @param value the key as sent: 1 to 255 characters (Unicode code points), not blank, no control
 *     characters, valid Unicode (no unpaired surrogates): the rules an MCP Gate server holds keys
 *     to
 */
public record IntentKey(String value) {
  /** The longest key, in characters (Unicode code points), as an MCP Gate server counts them. */
  public static final int MAX_LENGTH = 255;

  /**
   * @throws NullPointerException if {@code value} is null
   * @throws IllegalArgumentException if {@code value} breaks the rules above; the message names it
   */
  public IntentKey {
    requireNonNull(value, "value must not be null");
    int characters = value.codePointCount(0, value.length());
    if (characters == 0 || characters > MAX_LENGTH) {
      throw new IllegalArgumentException(
          "an intent key must be 1 to " + MAX_LENGTH + " characters, was " + characters);
    }
    if (value.isBlank()) {
      throw new IllegalArgumentException("an intent key must not be blank");
    }
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      if (Character.isISOControl(c)) {
        throw new IllegalArgumentException(
            "an intent key must not contain control characters; char "
                + i
                + " is U+"
                + String.format("%04X", (int) c));
      }
      if (Character.isHighSurrogate(c)
          && (i + 1 == value.length() || !Character.isLowSurrogate(value.charAt(i + 1)))) {
        throw new IllegalArgumentException(
            "an intent key must be valid Unicode; char " + i + " is an unpaired surrogate");
      }
      if (Character.isLowSurrogate(c)
          && (i == 0 || !Character.isHighSurrogate(value.charAt(i - 1)))) {
        throw new IllegalArgumentException(
            "an intent key must be valid Unicode; char " + i + " is an unpaired surrogate");
      }
    }
  }

  /**
   * @return a new key for a new intent: a random UUID
   */
  public static IntentKey random() {
    return new IntentKey(UUID.randomUUID().toString());
  }

  /**
   * @param operationId the caller's own id of the operation (an order's refund id, a job step),
   *     used as the key verbatim: the same operation id is the same intent, in this process or
   *     another
   * @return the key
   * @throws IllegalArgumentException if the id breaks the key rules; the message says which
   */
  public static IntentKey of(String operationId) {
    return new IntentKey(operationId);
  }

  @Override
  public String toString() {
    return value;
  }
}
