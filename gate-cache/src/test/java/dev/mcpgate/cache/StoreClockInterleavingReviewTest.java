package dev.mcpgate.cache;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Review guard (passes): with nanoTime's usual origin, no interleaving of sends, store reads,
 * out-of-order answers (some sent before the window began), window rotations and host suspensions
 * makes the estimate run behind the store's millisecond clock, with no margin. The store's clock
 * never steps; it runs at the rate of the wall clock, from an unrelated sub-millisecond phase.
 */
class StoreClockInterleavingReviewTest {

  private long mono = 987_654_321L; // monotonic nanos
  private long slept; // nanos the monotonic clock did not count
  private final long storePhase = 1_780_000_000_123_456_789L; // store epoch nanos at mono = 0
  private final long wallPhase = 1_780_000_000_000_777_777L;

  private long storeTrue() {
    return storePhase + mono + slept;
  }

  private static long truncMillis(long nanos) {
    return Math.floorDiv(nanos, 1_000_000L) * 1_000_000L;
  }

  private record Claim(long sent, long sentWall, Long storeNow) {}

  @Test
  void noInterleavingMakesTheEstimateRunBehindTheStore() {
    InstantSource wall = () -> Instant.ofEpochSecond(0, wallPhase + mono + slept);
    StoreClock clock = new StoreClock(() -> mono, wall, Duration.ZERO, Duration.ofSeconds(1));
    Random random = new Random(42);
    List<Claim> inFlight = new ArrayList<>();
    int answered = 0;
    for (int step = 0; step < 2_000_000; step++) {
      switch (random.nextInt(6)) {
        case 0 -> mono += random.nextInt(random.nextInt(4) == 0 ? 300_000_000 : 2_000_000);
        case 1 -> {
          if (random.nextInt(50) == 0) {
            slept += (long) random.nextInt(3_000) * 1_000_000 + random.nextInt(1_000_000);
          }
        }
        case 2 -> {
          if (inFlight.size() < 4) {
            inFlight.add(new Claim(mono, wall.millis(), null));
          }
        }
        case 3 -> { // the store reads its clock for the oldest claim it has not read yet
          for (int i = 0; i < inFlight.size(); i++) {
            Claim c = inFlight.get(i);
            if (c.storeNow() == null) {
              inFlight.set(i, new Claim(c.sent(), c.sentWall(), truncMillis(storeTrue())));
              break;
            }
          }
        }
        case 4 -> { // an answer arrives, in any order
          if (!inFlight.isEmpty()) {
            int i = random.nextInt(inFlight.size());
            Claim c = inFlight.get(i);
            if (c.storeNow() != null) {
              inFlight.remove(i);
              clock.measured(Instant.ofEpochSecond(0, c.storeNow()), c.sent(), c.sentWall());
            }
          }
        }
        default -> {
          Instant estimate = clock.cachedAnswerAt(Long.MAX_VALUE);
          if (estimate != null) {
            answered++;
            // a row expiring at the store's now (whole ms) must not be answered
            assertThat(StoreClock.epochNanos(estimate))
                .as("step %d", step)
                .isGreaterThanOrEqualTo(truncMillis(storeTrue()));
          }
        }
      }
    }
    assertThat(answered).isPositive();
  }
}
