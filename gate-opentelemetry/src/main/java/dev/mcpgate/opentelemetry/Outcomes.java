package dev.mcpgate.opentelemetry;

import dev.mcpgate.core.GateEvent;
import java.util.Locale;

/**
 * The one vocabulary of call outcomes that the instruments and the span attributes share; the
 * same as gate-micrometer's (a copy, so that this module does not pull Micrometer in).
 */
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

  /** @return where the call's key came from, {@code none} when the caller did not say */
  static String keySource(GateEvent e) {
    return e.keySource() == null ? "none" : e.keySource();
  }
}
