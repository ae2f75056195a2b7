package dev.mcpgate.mcp;

import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;

/**
 * An instant as {@link Instant#toString()} writes it (ISO-8601 in UTC, seconds always, the fraction
 * in groups of three digits as needed), built from {@link LocalDateTime#toString()}, which writes
 * the same fields without a formatter: {@code Instant.toString} goes through {@code
 * DateTimeFormatter}, which was most of the replay mark's cost.
 */
final class InstantText {
  private InstantText() {}

  static String of(Instant instant) {
    LocalDateTime utc =
        LocalDateTime.ofEpochSecond(instant.getEpochSecond(), instant.getNano(), ZoneOffset.UTC);
    if (utc.getYear() < 0 || utc.getYear() > 9999) {
      return instant.toString(); // signs and wider years: the formatter's rules
    }
    String text =
        utc.toString(); // LocalTime leaves out the seconds when they and the fraction are 0
    return utc.getSecond() == 0 && utc.getNano() == 0 ? text + ":00Z" : text + "Z";
  }
}
