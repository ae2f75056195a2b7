package dev.mcpgate.client;

/**
 * What is known of a call's effect on the server: the three truths an MCP Gate server tells in
 * {@code structuredContent.error.executed}, and what a client can tell for itself when answers were
 * lost.
 */
public enum Executed {
  /** The call did not take effect: nothing ran, or what ran was rolled back. */
  NO,
  /** The call ran and took effect. */
  YES,
  /**
   * The call ran, may have, or may still be running: whether it took effect is not known. Never
   * send the intent again under a new key: that could do it twice.
   */
  UNKNOWN;

  /**
   * @return the value for the wire word ({@code no}, {@code yes}, {@code unknown}), or null for
   *     anything else
   */
  static Executed fromWire(Object word) {
    if (!(word instanceof String s)) {
      return null;
    }
    return switch (s) {
      case "no" -> NO;
      case "yes" -> YES;
      case "unknown" -> UNKNOWN;
      default -> null;
    };
  }

  /**
   * @return the stronger of two pieces of knowledge: {@link #YES} over {@link #UNKNOWN} over {@link
   *     #NO}
   */
  Executed and(Executed other) {
    if (this == YES || other == YES) {
      return YES;
    }
    return this == UNKNOWN || other == UNKNOWN ? UNKNOWN : NO;
  }
}
