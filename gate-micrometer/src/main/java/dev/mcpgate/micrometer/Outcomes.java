package dev.mcpgate.micrometer;

import dev.mcpgate.core.GateEvent;
import java.util.Locale;

/** The one vocabulary of call outcomes that the meters and the observation attributes share. */
final class Outcomes {
  private Outcomes() {}

  /**
   * @return {@code executed}, {@code takeover}, {@code replayed} or {@code refused.<reason>} for
   *     a call decision; null for any other event
   */
  static String of(GateEvent e) {
    return switch (e.type()) {
      case ACQUIRED -> e.isTakeover() ? "takeover" : "executed";
      case REPLAYED -> "replayed";
      case REFUSED -> "refused." + e.reason().name().toLowerCase(Locale.ROOT);
      default -> null;
    };
  }
}
