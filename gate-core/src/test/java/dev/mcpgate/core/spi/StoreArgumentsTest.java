package dev.mcpgate.core.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The SPI's duration check: at least 1 ms, with a message that names the duration. */
class StoreArgumentsTest {
  @Test
  void aDurationOfAtLeastOneMillisecondIsReturned() {
    Duration lease = Duration.ofMillis(1);
    assertThat(StoreArguments.atLeastOneMs(lease, "lease")).isSameAs(lease);
    assertThat(StoreArguments.atLeastOneMs(Duration.ofDays(400), "retention"))
        .isEqualTo(Duration.ofDays(400));
  }

  @Test
  void aShorterOrMissingDurationIsRefusedNamingIt() {
    assertThatThrownBy(() -> StoreArguments.atLeastOneMs(null, "lease"))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("lease must not be null");
    assertThatThrownBy(() -> StoreArguments.atLeastOneMs(Duration.ZERO, "fence"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("fence must be at least 1 ms, was PT0S");
    assertThatThrownBy(() -> StoreArguments.atLeastOneMs(Duration.ofNanos(999_999), "within"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("within must be at least 1 ms");
    assertThatThrownBy(() -> StoreArguments.atLeastOneMs(Duration.ofMillis(-5), "retention"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("retention must be at least 1 ms, was PT-0.005S");
  }
}
