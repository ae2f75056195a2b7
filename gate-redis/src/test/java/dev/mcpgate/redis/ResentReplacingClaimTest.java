package dev.mcpgate.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.core.ClaimId;
import dev.mcpgate.core.LeaseToken;
import dev.mcpgate.core.spi.ClaimAttempt;
import dev.mcpgate.core.spi.ClaimRecord;
import dev.mcpgate.core.spi.ClaimRequest;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * A claim replacing a token, sent again after its reply was lost (a Lettuce client with its
 * default, at-least-once options re-sends what was unanswered when a connection closes): its second
 * run finds the row its first run wrote, which holds the request's own token and no longer the one
 * it replaced, and must still answer acquired with that row, never existing (another attempt's).
 */
class ResentReplacingClaimTest {
  private static final Duration LONG = Duration.ofMinutes(10);

  @Test
  void aReplacingClaimRunTwiceIsAcquiredBothTimesWithTheSameRow() throws Exception {
    try (RedisIdempotencyStore store =
        RedisIdempotencyStore.builder(TestRedis.client()).keyPrefix("mcpgate-test:").build()) {
      ClaimId id = new ClaimId("t-" + UUID.randomUUID(), "refund_order", "resent-replacing");
      LeaseToken read = LeaseToken.random();
      assertThat(store.claim(new ClaimRequest(id, "v1:a", read, Duration.ofMillis(200), LONG)))
          .isInstanceOf(ClaimAttempt.Acquired.class);
      Thread.sleep(400); // the lease read runs out: the row may be taken over
      LeaseToken token = LeaseToken.random();
      ClaimRequest settlement = new ClaimRequest(id, "v1:a", token, LONG, LONG, read);

      ClaimAttempt first = store.claim(settlement);
      ClaimAttempt again = store.claim(settlement); // what the re-sent script runs

      assertThat(first).isInstanceOf(ClaimAttempt.Acquired.class);
      assertThat(again).isInstanceOf(ClaimAttempt.Acquired.class);
      assertThat(first.record().token()).isEqualTo(token);
      assertThat(first.record().attempt()).isEqualTo(2);
      assertThat(sameRow(again.record())).isEqualTo(sameRow(first.record()));
      assertThat(again.record().leaseExpiresAt()).isAfter(again.storeNow());
      assertThat(sameRow(store.find(id).orElseThrow())).isEqualTo(sameRow(first.record()));
    }
  }

  /** The row without its lease and expiry, which a re-sent claim sets from its own run's clock. */
  private static ClaimRecord sameRow(ClaimRecord r) {
    return new ClaimRecord(
        r.id(),
        r.argsHash(),
        r.state(),
        r.token(),
        r.attempt(),
        r.createdAt(),
        r.createdAt(),
        r.createdAt(),
        r.completedAt(),
        r.result());
  }
}
