package dev.mcpgate.redis.review;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.core.ClaimId;
import dev.mcpgate.core.LeaseToken;
import dev.mcpgate.core.StoreUnavailableException;
import dev.mcpgate.core.spi.ClaimRequest;
import dev.mcpgate.redis.RedisIdempotencyStore;
import dev.mcpgate.store.tck.fault.FaultProxy;
import io.lettuce.core.RedisURI;
import java.net.URI;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * A Redis that accepts connections and answers nothing (a hung host, a black-holed path after the
 * TCP handshake: {@code FaultProxy.blackholeNew}), met by a store built from a {@link RedisURI},
 * which connects on its first command. The store's own client promises that commands "time out
 * after" the command timeout and that an unreachable Redis fails closed: the first claim must fail
 * ({@link StoreUnavailableException}, the action did not run) within about that timeout, not after
 * Lettuce's 60 s handshake timeout, while every other call waits behind the connecting one.
 */
class HungServerReviewTest {

  @Test
  void theFirstClaimOnAHungServerFailsClosedWithinTheCommandTimeout() throws Exception {
    String url = ReviewRedis.url();
    try (FaultProxy proxy = FaultProxy.to(URI.create(url))) {
      proxy.blackholeNew(true);
      Duration timeout = Duration.ofSeconds(2);
      try (RedisIdempotencyStore store =
          RedisIdempotencyStore.builder(RedisURI.create(proxy.relayed(URI.create(url)).toString()))
              .keyPrefix("mcpgate-review:")
              .commandTimeout(timeout)
              .build()) {
        ClaimId id = new ClaimId("review-hung-" + UUID.randomUUID(), "refund_order", "k");
        long start = System.nanoTime();
        Object answer;
        try {
          answer =
              store.claim(
                  new ClaimRequest(
                      id,
                      "v1:a",
                      LeaseToken.random(),
                      Duration.ofSeconds(30),
                      Duration.ofMinutes(5)));
        } catch (RuntimeException e) {
          answer = e;
        }
        Duration took = Duration.ofNanos(System.nanoTime() - start);
        assertThat(answer).isInstanceOf(StoreUnavailableException.class);
        assertThat(took)
            .as("the first claim on a server that answers nothing (answer: %s)", answer)
            .isLessThan(timeout.plusSeconds(3));
      }
    }
  }
}
