package dev.mcpgate.dynamodb.review;

import static dev.mcpgate.dynamodb.review.ScriptedHttp.Fault.LAND_LOSE;
import static dev.mcpgate.dynamodb.review.ScriptedHttp.Fault.PASS;
import static dev.mcpgate.dynamodb.review.ScriptedHttp.Fault.REFUSE;
import static dev.mcpgate.dynamodb.review.ScriptedHttp.Fault.THROTTLE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.mcpgate.core.ClaimId;
import dev.mcpgate.core.LeaseToken;
import dev.mcpgate.core.StoreUnavailableException;
import dev.mcpgate.core.spi.ClaimAttempt;
import dev.mcpgate.core.spi.ClaimRequest;
import dev.mcpgate.dynamodb.DynamoDbIdempotencyStore;
import dev.mcpgate.store.tck.MutableClock;
import java.time.Duration;
import java.time.Instant;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.retries.DefaultRetryStrategy;
import software.amazon.awssdk.retries.api.BackoffStrategy;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * A claim's {@code PutItem} whose outcome the store must read back (its answer lost, or a refusal
 * from a server that does not return the old item, as dynalite), and the read fails too. What the
 * caller is told must match what may be on the server: a write that may have landed may hold the
 * key for its lease and the safety margin after it; a write refused on its only try holds nothing.
 * Reviews 7 and 8 of the read-back's handling found the cases after the first.
 */
class ClaimReadBackFailuresTest {
  private static final Duration LONG = Duration.ofMinutes(10);
  private static final Instant T0 = Instant.parse("2031-01-01T00:00:00Z");

  private static DynamoDbClient client(ScriptedHttp http, int tries) {
    return ReviewDynamo.client(
        ReviewDynamo.endpoint(),
        b ->
            b.httpClient(http)
                .overrideConfiguration(c -> c.retryStrategy(r -> r.maxAttempts(tries))));
  }

  /** Retries I/O failures only, at once: a throttled read is not retried. */
  private static DynamoDbClient ioRetriesOnly(ScriptedHttp http) {
    return ReviewDynamo.client(
        ReviewDynamo.endpoint(),
        b ->
            b.httpClient(http)
                .overrideConfiguration(
                    c ->
                        c.retryStrategy(
                            DefaultRetryStrategy.standardStrategyBuilder()
                                .maxAttempts(3)
                                .backoffStrategy(BackoffStrategy.retryImmediately())
                                .retryOnException(t -> t instanceof SdkClientException)
                                .useClientDefaults(false)
                                .build())));
  }

  private static ClaimId id(String tool) {
    return new ClaimId("review", tool, UUID.randomUUID().toString());
  }

  /**
   * The put lands, its answer lost, and every read of the item fails.
   *
   * @param tries the SDK's tries of each request: 1, the lost answer is the last try's; 3, the
   *     retries then find no connection, so only an earlier try may have landed
   */
  @ParameterizedTest(name = "{0} tries")
  @ValueSource(ints = {1, 3})
  void aLandedClaimWhoseItemCannotBeReadIsToldAsOneThatMayHoldTheKey(int tries) {
    MutableClock clock = new MutableClock(T0);
    ScriptedHttp http =
        new ScriptedHttp().script("PutItem", LAND_LOSE).otherwise("PutItem", REFUSE);
    http.otherwise("GetItem", THROTTLE);
    ClaimId id = id("claim-unread");
    LeaseToken token = LeaseToken.random();
    try (DynamoDbClient client = client(http, tries);
        DynamoDbIdempotencyStore store = ReviewDynamo.store(client, clock);
        DynamoDbClient direct = ReviewDynamo.client(ReviewDynamo.endpoint());
        DynamoDbIdempotencyStore reader = ReviewDynamo.store(direct, clock)) {

      Throwable thrown =
          catchThrowable(() -> store.claim(new ClaimRequest(id, "v1:a", token, LONG, LONG)));

      assertThat(http.landed).as("the PutItem reached the server, its answer lost").hasValue(1);
      assertThat(http.tries("GetItem")).as("the item was read back").isPositive();
      assertThat(reader.find(id).orElseThrow().token())
          .as("the key is held by this very request's claim")
          .isEqualTo(token);
      assertThat(thrown)
          .isInstanceOf(StoreUnavailableException.class)
          .hasMessageContaining("its write may have landed")
          .hasMessageContaining("could not be read back")
          .hasMessageContaining("the action did not run")
          .hasMessageContaining(
              "the key may stay held by this claim until its lease and the lease safety margin"
                  + " after it end");
      assertThat(thrown.getSuppressed())
          .as("the read's failure is kept")
          .anySatisfy(read -> assertThat(read).hasMessageContaining("read " + id));
    }
  }

  /**
   * Another attempt holds the key; this put is refused on its one try (it surely did not land), and
   * every read of the item fails: the read's failure is told, not a write that may hold the key.
   */
  @Test
  void aRefusedPutWhoseItemCannotBeReadIsNotToldAsAWriteThatMayHoldTheKey() {
    MutableClock clock = new MutableClock(T0);
    ClaimId id = id("refused-unread");
    ScriptedHttp http = new ScriptedHttp();
    http.otherwise("GetItem", THROTTLE);
    LeaseToken other = LeaseToken.random();
    RuntimeException thrown = null;
    LeaseToken holder;
    try (DynamoDbClient client = client(http, 3);
        DynamoDbIdempotencyStore store = ReviewDynamo.store(client, clock);
        DynamoDbClient direct = ReviewDynamo.client(ReviewDynamo.endpoint());
        DynamoDbIdempotencyStore others = ReviewDynamo.store(direct, clock)) {
      others.claim(new ClaimRequest(id, "v1:a", other, LONG, LONG)); // a live lease
      try {
        store.claim(new ClaimRequest(id, "v1:a", LeaseToken.random(), LONG, LONG));
      } catch (RuntimeException e) {
        thrown = e;
      }
      holder = others.find(id).orElseThrow().token();
    }
    assertThat(http.tries("PutItem")).as("one PutItem try, refused by its condition").isEqualTo(1);
    assertThat(http.landed).as("nothing of this request's landed").hasValue(0);
    assertThat(holder).as("the key is the other attempt's").isEqualTo(other);
    assertThat(thrown).isInstanceOf(StoreUnavailableException.class);
    assertThat(thrown.getMessage())
        .as("the PutItem was refused: it did not land and holds nothing")
        .doesNotContain("may have landed")
        .doesNotContain("may stay held by this claim");
  }

  /**
   * The put lands, its answer lost; the SDK's retry is refused by the request's own item, and the
   * read of it fails on its one try: the next round's put finds the item, and the claim is
   * acquired.
   */
  @Test
  void aLandedPutRefusedOnRetryWhoseReadFailsOnceIsAcquiredInTheNextRound() {
    MutableClock clock = new MutableClock(T0);
    ClaimId id = id("refused-on-retry-read-once");
    ScriptedHttp http =
        new ScriptedHttp().script("PutItem", LAND_LOSE, PASS).script("GetItem", THROTTLE);
    LeaseToken token = LeaseToken.random();
    try (DynamoDbClient client = ioRetriesOnly(http);
        DynamoDbIdempotencyStore store = ReviewDynamo.store(client, clock)) {
      ClaimAttempt attempt = store.claim(new ClaimRequest(id, "v1:a", token, LONG, LONG));

      assertThat(http.landed).as("the PutItem reached the server, its answer lost").hasValue(1);
      assertThat(http.tries("GetItem")).as("the failed read, then the next round's").isEqualTo(2);
      assertThat(attempt)
          .as("the next round's put finds the request's own item: its claim, not a failure")
          .isInstanceOfSatisfying(
              ClaimAttempt.Acquired.class, a -> assertThat(a.record().token()).isEqualTo(token));
    }
  }

  /** As above, but every read fails: told as a claim that may hold the key. */
  @Test
  void aLandedPutRefusedOnRetryWhoseItemCannotBeReadSaysItMayHoldTheKey() {
    MutableClock clock = new MutableClock(T0);
    ClaimId id = id("refused-on-retry-unread");
    ScriptedHttp http = new ScriptedHttp().script("PutItem", LAND_LOSE, PASS);
    http.otherwise("GetItem", THROTTLE);
    LeaseToken token = LeaseToken.random();
    RuntimeException thrown = null;
    LeaseToken holder;
    try (DynamoDbClient client = ioRetriesOnly(http);
        DynamoDbIdempotencyStore store = ReviewDynamo.store(client, clock);
        DynamoDbClient direct = ReviewDynamo.client(ReviewDynamo.endpoint());
        DynamoDbIdempotencyStore reader = ReviewDynamo.store(direct, clock)) {
      try {
        store.claim(new ClaimRequest(id, "v1:a", token, LONG, LONG));
      } catch (RuntimeException e) {
        thrown = e;
      }
      holder = reader.find(id).orElseThrow().token();
    }
    assertThat(http.landed).as("the PutItem reached the server, its answer lost").hasValue(1);
    assertThat(http.tries("PutItem"))
        .as("the lost try, the refused retry, then the next round's put, refused by the item")
        .isEqualTo(3);
    assertThat(holder).as("the key is held by this very request's claim").isEqualTo(token);
    assertThat(thrown)
        .as("told as a claim that may hold the key, not as a plain read failure")
        .isInstanceOf(StoreUnavailableException.class)
        .hasMessageContaining("may have landed")
        .hasMessageContaining("may stay held by this claim");
  }

  /**
   * Reads fail throughout, and each put's first try is throttled and its retry refused by the item
   * the first round's lost try wrote: the claim claims again once (two rounds of a put and its
   * retry) and reads no more than a claim did before that round was added (6).
   */
  @Test
  void aClaimInAReadOutageClaimsAgainOnceAndReadsNoMoreThanBefore() {
    MutableClock clock = new MutableClock(T0);
    ClaimId id = id("rounds-in-outage");
    ScriptedHttp http =
        new ScriptedHttp()
            .script("PutItem", LAND_LOSE, PASS)
            .script("PutItem", THROTTLE, PASS, THROTTLE, PASS, THROTTLE, PASS, THROTTLE, PASS)
            .otherwise("GetItem", THROTTLE);
    Throwable thrown;
    try (DynamoDbClient client = client(http, 3);
        DynamoDbIdempotencyStore store = ReviewDynamo.store(client, clock)) {
      thrown =
          catchThrowable(
              () -> store.claim(new ClaimRequest(id, "v1:a", LeaseToken.random(), LONG, LONG)));
    }
    assertThat(thrown)
        .as("the put of round 1 may hold the key, and the failure says so")
        .hasMessageContaining("may have landed")
        .hasMessageContaining("may stay held by this claim");
    assertThat(http.tries("GetItem"))
        .as("reads of one claim in a read outage")
        .isLessThanOrEqualTo(6);
    assertThat(http.tries("PutItem"))
        .as("puts of one claim in a read outage: two rounds, a try and a retry each")
        .isEqualTo(4);
  }
}
