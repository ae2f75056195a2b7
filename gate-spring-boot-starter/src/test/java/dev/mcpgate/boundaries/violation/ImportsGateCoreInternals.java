package dev.mcpgate.boundaries.violation;

import dev.mcpgate.core.internal.Checks;

/**
 * A class outside gate-core that imports gate-core's internal package, which {@code
 * InternalPackagesTest}'s rule must report. A test class: never in a jar, and outside what the rule
 * is checked against.
 */
public final class ImportsGateCoreInternals {
  private ImportsGateCoreInternals() {}

  static String name(String value) {
    return Checks.notNull(value, "value");
  }
}
