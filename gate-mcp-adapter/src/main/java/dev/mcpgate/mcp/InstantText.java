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
  // 0000-01-01T00:00:00Z and 10000-01-01T00:00:00Z: between them, years of four digits
  private static final long FIRST = -62_167_219_200L;
  private static final long AFTER_LAST = 253_402_300_800L;

  private InstantText() {}

  static String of(Instant instant) {
    long second = instant.getEpochSecond();
    if (second < FIRST || second >= AFTER_LAST) {
      return instant.toString(); // signs and wider years (some past LocalDateTime): its own rules
    }
    LocalDateTime utc = LocalDateTime.ofEpochSecond(second, instant.getNano(), ZoneOffset.UTC);
    String text = utc.toString(); // LocalTime leaves out the seconds when they and the nanos are 0
    return utc.getSecond() == 0 && utc.getNano() == 0 ? text + ":00Z" : text + "Z";
  }
}
