package dev.mcpgate.core.internal.engine;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The waiting arithmetic of a claim: back-off, its caps, and the retry-after clamp. */
class ClaimerArithmeticTest {
  private static final long MS = 1_000_000;

  @Test
  void theBackOffDoublesUpToItsCap() {
    assertThat(Claimer.nextBackoffMs(Claimer.FIRST_BACKOFF_MS)).isEqualTo(10);
    assertThat(Claimer.nextBackoffMs(40)).isEqualTo(80);
    assertThat(Claimer.nextBackoffMs(80)).isEqualTo(100);
    assertThat(Claimer.nextBackoffMs(100)).isEqualTo(100);
  }

  @Test
  void aSleepIsTheSmallestOfBackOffTimeLeftAndRetryAfterAndAtLeastOneMillisecond() {
    assertThat(Claimer.sleepMs(40, 1_000 * MS, Duration.ofSeconds(2))).isEqualTo(40);
    assertThat(Claimer.sleepMs(40, 25 * MS, Duration.ofSeconds(2))).isEqualTo(25);
    assertThat(Claimer.sleepMs(40, 1_000 * MS, Duration.ofMillis(7))).isEqualTo(7);
    assertThat(Claimer.sleepMs(40, 1_000 * MS, Duration.ZERO)).isEqualTo(1);
  }

  @Test
  void aWaitWithLessThanAMillisecondLeftHasRunOut() {
    assertThat(Claimer.sleepMs(40, 0, Duration.ofSeconds(2))).isZero();
    assertThat(Claimer.sleepMs(40, MS - 1, Duration.ofSeconds(2))).isZero();
    assertThat(Claimer.sleepMs(40, -5 * MS, Duration.ofSeconds(2))).isZero();
    assertThat(Claimer.sleepMs(40, MS, Duration.ofSeconds(2))).isEqualTo(1);
  }

  @Test
  void retryAfterIsAtLeastOneMillisecondAndAtMostTheCap() {
    Duration cap = Duration.ofSeconds(5);
    assertThat(Claimer.clamp(Duration.ZERO, cap)).isEqualTo(Duration.ofMillis(1));
    assertThat(Claimer.clamp(Duration.ofMillis(-3), cap)).isEqualTo(Duration.ofMillis(1));
    assertThat(Claimer.clamp(Duration.ofMillis(1), cap)).isEqualTo(Duration.ofMillis(1));
    assertThat(Claimer.clamp(Duration.ofMillis(1200), cap)).isEqualTo(Duration.ofMillis(1200));
    assertThat(Claimer.clamp(cap, cap)).isEqualTo(cap);
    assertThat(Claimer.clamp(Duration.ofSeconds(9), cap)).isEqualTo(cap);
  }
}
