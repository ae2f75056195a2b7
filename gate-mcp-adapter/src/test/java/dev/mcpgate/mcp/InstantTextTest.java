package dev.mcpgate.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The replay mark's time is written exactly as {@link Instant#toString()} writes it. */
class InstantTextTest {

  @Test
  void writesEveryInstantAsInstantToStringDoes() {
    SplittableRandom random = new SplittableRandom(20261204);
    long min = Instant.parse("-1000-01-01T00:00:00Z").getEpochSecond();
    long max = Instant.parse("+12000-01-01T00:00:00Z").getEpochSecond();
    int[] nanos = {0, 1, 999_999_999, 1_000, 123_000_000, 120_000, 100_000_000, 500};
    for (int i = 0; i < 200_000; i++) {
      long second =
          i % 4 == 0
              ? random.nextLong(min, max)
              : random.nextLong(1_700_000_000L, 1_900_000_000L); // the years the gate lives in
      if (i % 7 == 0) {
        second -= Math.floorMod(second, 60); // a whole minute: seconds written all the same
      }
      int nano = i % 3 == 0 ? nanos[random.nextInt(nanos.length)] : random.nextInt(1_000_000_000);
      Instant instant = Instant.ofEpochSecond(second, nano);
      assertThat(InstantText.of(instant)).as("%s", instant).isEqualTo(instant.toString());
    }
  }

  @Test
  void writesTheEdgesOfTheYearsItFormatsItselfAsInstantToStringDoes() {
    for (String text :
        new String[] {
          "0000-01-01T00:00:00Z",
          "-0001-12-31T23:59:59.999999999Z",
          "9999-12-31T23:59:59.999Z",
          "+10000-01-01T00:00:00Z",
          "1970-01-01T00:00:00Z",
          "2026-12-04T12:00:00.000001Z",
          "2026-12-04T12:00:00.100Z",
          "2026-12-04T00:00:00Z"
        }) {
      Instant instant = Instant.parse(text);
      assertThat(InstantText.of(instant)).isEqualTo(instant.toString());
    }
    for (Instant instant : new Instant[] {Instant.MIN, Instant.MAX, Instant.EPOCH}) {
      assertThat(InstantText.of(instant)).isEqualTo(instant.toString()); // past LocalDateTime
    }
  }
}
