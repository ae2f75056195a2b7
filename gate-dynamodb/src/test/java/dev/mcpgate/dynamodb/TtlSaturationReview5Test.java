package dev.mcpgate.dynamodb;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * Review5 of e372dbd ({@code ClaimItems.ttlSeconds}). The saturation returns {@code
 * floorDiv(Long.MAX_VALUE - 999, 1000)} = 9223372036854774, while the sum one millisecond of margin
 * below the saturation point gives {@code floorDiv(Long.MAX_VALUE, 1000)} = 9223372036854775:
 * raising the margin by 1 ms lowers the TTL by a second, and the saturated value is not "the
 * largest TTL there is" (CHANGELOG). It is also below ceil((expires + margin) / 1000), the
 * invariant the method's Javadoc states. Nit: only at ~292 million years.
 */
class TtlSaturationReview5Test {
  private static ClaimItems items(long marginMs) {
    return new ClaimItems("pk", "", null, null, "ttl", false, marginMs);
  }

  @Test
  void aLargerMarginNeverGivesASmallerTtl() {
    long expires = 1_924_992_000_000L + 3_600_000L; // 2031 plus an hour
    long lastUnsaturated = Long.MAX_VALUE - 999 - expires; // expires + margin + 999 == MAX
    long atTheEdge = items(lastUnsaturated).ttlSeconds(expires);
    long saturated = items(lastUnsaturated + 1).ttlSeconds(expires);
    assertThat(saturated)
        .as("margin %s gives %s; 1 ms more margin gives %s", lastUnsaturated, atTheEdge, saturated)
        .isGreaterThanOrEqualTo(atTheEdge);
  }
}
