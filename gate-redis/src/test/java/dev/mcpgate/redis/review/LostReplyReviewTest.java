package dev.mcpgate.redis.review;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.core.ClaimId;
import dev.mcpgate.core.LeaseToken;
import dev.mcpgate.core.StoreUnavailableException;
import dev.mcpgate.core.spi.ClaimAttempt;
import dev.mcpgate.core.spi.ClaimRecord;
import dev.mcpgate.core.spi.ClaimRequest;
import dev.mcpgate.core.spi.ClaimState;
import dev.mcpgate.core.spi.StoredResult;
import dev.mcpgate.redis.RedisIdempotencyStore;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Supplier;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Test;

/**
 * A script that ran on the server but whose reply was lost, its connection then closed in order (a
 * FIN: Redis's {@code timeout} or {@code CLIENT KILL}, a restart, a proxy or load balancer that
 * drops the connection), on a store built on the application's own {@link RedisClient} with
 * Lettuce's default options, as {@code RedisIdempotencyStore.builder(client)} and the Spring Boot
 * starter's {@code RedisClient} bean path build it.
 *
 * <p>Lettuce's default options (auto-reconnect, at-least-once) put the commands that were written
 * but not answered back in the queue when the connection closes, and send them again once it has
 * reconnected. The script then runs a second time on a row its first run has already changed, and
 * the second answer is the one the store returns. The SPI asks for a definite false only when
 * nothing was written; a reply that is not known must be a {@link StoreUnavailableException} (the
 * gate then reads the row back, or fences the key), or the true it was.
 */
class LostReplyReviewTest {
  private static final Duration LEASE = Duration.ofSeconds(30);
  private static final Duration RETENTION = Duration.ofMinutes(10);
  private static final StoredResult RESULT =
      new StoredResult(StoredResult.Kind.VALUE, "refunded".getBytes(StandardCharsets.UTF_8));

  private final String tenant = "review-lost-reply-" + UUID.randomUUID();

  private interface StoreTest {
    void run(RedisIdempotencyStore store, ReplyDroppingProxy proxy) throws Exception;
  }

  private static void onTheApplicationsDefaultClient(StoreTest test) throws Exception {
    onTheApplicationsClient(null, test);
  }

  /** The store on the application's client, with {@code options} when not null. */
  private static void onTheApplicationsClient(ClientOptions options, StoreTest test)
      throws Exception {
    URI url = URI.create(ReviewRedis.url());
    try (ReplyDroppingProxy proxy = new ReplyDroppingProxy(url.getHost(), url.getPort())) {
      RedisClient client = RedisClient.create(RedisURI.create("redis://127.0.0.1:" + proxy.port()));
      if (options != null) {
        client.setOptions(options);
      }
      try (RedisIdempotencyStore store =
          RedisIdempotencyStore.builder(client).keyPrefix("mcpgate-review:").build()) {
        test.run(store, proxy);
      } finally {
        client.shutdown();
      }
    }
  }

  /** Its answer, or what it threw. */
  private static Object answerOf(Supplier<Object> write) {
    try {
      return write.get();
    } catch (RuntimeException e) {
      return e;
    }
  }

  private ClaimId claimed(RedisIdempotencyStore store, String key, LeaseToken token) {
    ClaimId id = new ClaimId(tenant, "refund_order", key);
    assertThat(store.claim(new ClaimRequest(id, "v1:a", token, LEASE, RETENTION)))
        .isInstanceOf(ClaimAttempt.Acquired.class);
    return id;
  }

  /** Loads every script on the server, so the command whose reply is lost is the script itself. */
  private void warmUp(RedisIdempotencyStore store) {
    LeaseToken t = LeaseToken.random();
    ClaimId a = claimed(store, "warm-a", t);
    store.markUnknown(a, t, RETENTION);
    store.complete(a, t, RESULT, RETENTION);
    LeaseToken u = LeaseToken.random();
    ClaimId b = claimed(store, "warm-b", u);
    store.extendLease(b, u, LEASE);
    store.release(b, u);
  }

  @Test
  void aCompletionWhoseReplyIsLostIsNeverReportedAsNotStored() throws Exception {
    onTheApplicationsDefaultClient(
        (store, proxy) -> {
          warmUp(store);
          LeaseToken token = LeaseToken.random();
          ClaimId id = claimed(store, "ord-1", token);

          proxy.loseNextReply();
          Object answer = answerOf(() -> store.complete(id, token, RESULT, RETENTION));

          assertThat(proxy.lost()).isEqualTo(1);
          ClaimRecord row = store.find(id).orElseThrow();
          assertThat(row.state()).isEqualTo(ClaimState.COMPLETED);
          assertThat(row.token()).isEqualTo(token);
          assertThat(row.result()).isEqualTo(RESULT);
          // the result is stored: "false" (nothing was written: the lease was taken over, the
          // gate's LEASE_LOST "this result was not stored") is untrue
          assertThat(answer)
              .as("complete's answer once its reply was lost, while the row holds its result")
              .satisfiesAnyOf(
                  a -> assertThat(a).isEqualTo(Boolean.TRUE),
                  a -> assertThat(a).isInstanceOf(StoreUnavailableException.class));
        });
  }

  @Test
  void aClaimWhoseReplyIsLostIsNeverAnsweredAsAnotherAttemptsRow() throws Exception {
    onTheApplicationsDefaultClient(
        (store, proxy) -> {
          warmUp(store);
          ClaimId id = new ClaimId(tenant, "refund_order", "ord-2");
          LeaseToken token = LeaseToken.random();

          proxy.loseNextReply();
          Object answer =
              answerOf(() -> store.claim(new ClaimRequest(id, "v1:a", token, LEASE, RETENTION)));

          assertThat(proxy.lost()).isEqualTo(1);
          assertThat(store.find(id).orElseThrow().token()).isEqualTo(token);
          // the row is this request's own: "existing" (another attempt holds the key, the gate
          // answers in flight and waits for a holder that does not exist, and a later retry is
          // reported as a takeover) is untrue; acquired, or not known (the store failed), is
          assertThat(answer)
              .as("claim's answer once its reply was lost, while the row holds its token")
              .satisfiesAnyOf(
                  a -> assertThat(a).isInstanceOf(ClaimAttempt.Acquired.class),
                  a -> assertThat(a).isInstanceOf(StoreUnavailableException.class));
        });
  }

  /**
   * On the store's own client ({@code builder(uri)}: commands rejected while disconnected, none
   * sent twice by Lettuce), a claim whose reply was lost used to fail as the store being
   * unavailable while its row held the key: a retry within the lease was refused as in progress
   * (nothing ran), and after it was told of a takeover (attempt 1 never ran). The store sends the
   * claim once more with the same token, which the script answers as acquired.
   */
  @Test
  void aClaimWhoseReplyIsLostOnTheStoresOwnClientIsAcquired() throws Exception {
    URI url = URI.create(ReviewRedis.url());
    try (ReplyDroppingProxy proxy = new ReplyDroppingProxy(url.getHost(), url.getPort());
        RedisIdempotencyStore store =
            RedisIdempotencyStore.builder(RedisURI.create("redis://127.0.0.1:" + proxy.port()))
                .keyPrefix("mcpgate-review:")
                .build()) {
      warmUp(store);
      ClaimId id = new ClaimId(tenant, "refund_order", "ord-7");
      LeaseToken token = LeaseToken.random();

      proxy.loseNextReply();
      Object answer =
          answerOf(() -> store.claim(new ClaimRequest(id, "v1:a", token, LEASE, RETENTION)));

      assertThat(proxy.lost()).isEqualTo(1);
      assertThat(answer)
          .as("claim's answer once its reply was lost, while the row holds its token")
          .isInstanceOf(ClaimAttempt.Acquired.class);
      ClaimAttempt.Acquired acquired = (ClaimAttempt.Acquired) answer;
      assertThat(acquired.record().token()).isEqualTo(token);
      assertThat(acquired.record().leaseExpiresAt()).isAfter(acquired.storeNow());
      assertThat(store.find(id).orElseThrow().token()).isEqualTo(token);
    }
  }

  /**
   * A claim that was never sent (the connection to Redis lost and not made again) ran nothing and
   * fails at once: it does not wait for the connection as a claim whose reply was lost does. The
   * command timeout here is two minutes, the bound half a minute.
   */
  @Test
  void aClaimThatWasNeverSentFailsWithoutWaitingToResend() throws Exception {
    URI url = URI.create(ReviewRedis.url());
    ReplyDroppingProxy proxy = new ReplyDroppingProxy(url.getHost(), url.getPort());
    try (RedisIdempotencyStore store =
        RedisIdempotencyStore.builder(RedisURI.create("redis://127.0.0.1:" + proxy.port()))
            .keyPrefix("mcpgate-review:")
            .commandTimeout(Duration.ofMinutes(2))
            .build()) {
      warmUp(store);
      proxy.close(); // Redis gone: the connection closed, no new one accepted
      ClaimId id = new ClaimId(tenant, "refund_order", "ord-9");
      Assertions.assertTimeoutPreemptively(
          Duration.ofSeconds(30),
          () -> {
            while (!(answerOf(() -> store.find(id)) instanceof StoreUnavailableException)) {
              Thread.sleep(10); // until the store has seen its connection close
            }
            Object answer =
                answerOf(
                    () ->
                        store.claim(
                            new ClaimRequest(id, "v1:a", LeaseToken.random(), LEASE, RETENTION)));
            assertThat(answer).isInstanceOf(StoreUnavailableException.class);
          });
    }
  }

  @Test
  void aMarkUnknownWhoseReplyIsLostIsNeverReportedAsLeaseLost() throws Exception {
    onTheApplicationsDefaultClient(
        (store, proxy) -> {
          warmUp(store);
          LeaseToken token = LeaseToken.random();
          ClaimId id = claimed(store, "ord-3", token);

          proxy.loseNextReply();
          Object answer = answerOf(() -> store.markUnknown(id, token, RETENTION));

          assertThat(proxy.lost()).isEqualTo(1);
          ClaimRecord row = store.find(id).orElseThrow();
          assertThat(row.state()).isEqualTo(ClaimState.UNKNOWN);
          assertThat(row.token()).isEqualTo(token);
          // the key is fenced by this token: "false" (the lease was taken over, the gate's
          // LEASE_LOST instead of MARKED_UNKNOWN) is untrue
          assertThat(answer)
              .as("markUnknown's answer once its reply was lost, while the row is fenced by it")
              .satisfiesAnyOf(
                  a -> assertThat(a).isEqualTo(Boolean.TRUE),
                  a -> assertThat(a).isInstanceOf(StoreUnavailableException.class));
        });
  }

  /**
   * A known limit, pinned: on a client that sends a command again after its reply was lost (the
   * default), a release's first run deleted the row, so its second run answers false and the gate
   * tells listeners the lease was lost, though the key is free (docs/stores.md says so, and how to
   * avoid it: {@link #aReleaseWhoseReplyIsLostOnAClientThatRejectsIsNotToldRefused}).
   */
  @Test
  void aReleaseWhoseReplyIsLostOnADefaultClientIsToldRefusedThoughTheKeyIsFree() throws Exception {
    onTheApplicationsDefaultClient(
        (store, proxy) -> {
          warmUp(store);
          LeaseToken token = LeaseToken.random();
          ClaimId id = claimed(store, "ord-4", token);

          proxy.loseNextReply();
          Object answer = answerOf(() -> store.release(id, token));

          assertThat(proxy.lost()).isEqualTo(1);
          assertThat(store.find(id)).isEmpty();
          assertThat(answer).isEqualTo(Boolean.FALSE);
        });
  }

  /**
   * With {@code disconnectedBehavior(REJECT_COMMANDS)}, as docs/stores.md advises, the command
   * whose reply was lost is not sent again: the release fails as the store being unavailable (the
   * gate then says only what it knows), never as refused.
   */
  @Test
  void aReleaseWhoseReplyIsLostOnAClientThatRejectsIsNotToldRefused() throws Exception {
    onTheApplicationsClient(
        ClientOptions.builder()
            .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
            .build(),
        (store, proxy) -> {
          warmUp(store);
          LeaseToken token = LeaseToken.random();
          ClaimId id = claimed(store, "ord-6", token);

          proxy.loseNextReply();
          Object answer = answerOf(() -> store.release(id, token));

          assertThat(proxy.lost()).isEqualTo(1);
          assertThat(answer).isInstanceOf(StoreUnavailableException.class);
          Object row = null;
          for (int i = 0; i < 50; i++) { // the client reconnects by itself
            row = answerOf(() -> store.find(id));
            if (!(row instanceof StoreUnavailableException)) {
              break;
            }
            Thread.sleep(100);
          }
          assertThat(row).as("the release ran once: the row is gone").isEqualTo(Optional.empty());
        });
  }

  /**
   * Pins the fix of {@link #aClaimWhoseReplyIsLostIsNeverAnsweredAsAnotherAttemptsRow}: the same
   * claim sent again late (the client reconnected after a backoff), once its lease has run out and
   * before anyone took it over, is acquired with a lease from now, never with the lease that ran
   * out (the gate would run the action under a lease any other call may take over at once).
   */
  @Test
  void aClaimSentAgainAfterItsLeaseRanOutIsAcquiredWithALeaseFromNow() throws Exception {
    URI url = URI.create(ReviewRedis.url());
    RedisClient client = RedisClient.create(RedisURI.create(url.toString()));
    try (RedisIdempotencyStore store =
        RedisIdempotencyStore.builder(client).keyPrefix("mcpgate-review:").build()) {
      ClaimId id = new ClaimId(tenant, "refund_order", "ord-5");
      LeaseToken token = LeaseToken.random();
      ClaimRequest request = new ClaimRequest(id, "v1:a", token, Duration.ofMillis(200), RETENTION);
      assertThat(store.claim(request)).isInstanceOf(ClaimAttempt.Acquired.class);
      Thread.sleep(400);

      ClaimAttempt again = store.claim(request); // what a late re-send runs
      assertThat(again).isInstanceOf(ClaimAttempt.Acquired.class);
      assertThat(again.record().token()).isEqualTo(token);
      assertThat(again.record().leaseExpiresAt()).isAfter(again.storeNow());
      assertThat(store.find(id).orElseThrow().leaseExpiresAt()).isAfter(store.now());
    } finally {
      client.shutdown();
    }
  }
}
