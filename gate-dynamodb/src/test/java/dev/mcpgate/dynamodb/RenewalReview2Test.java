package dev.mcpgate.dynamodb;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.core.ClaimId;
import dev.mcpgate.core.LeaseToken;
import dev.mcpgate.core.StoreUnavailableException;
import dev.mcpgate.core.spi.ClaimAttempt;
import dev.mcpgate.core.spi.ClaimRequest;
import dev.mcpgate.core.spi.ExtendedLeases;
import dev.mcpgate.core.spi.HeldLease;
import dev.mcpgate.store.tck.fault.FaultProxy;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * Adversarial review of the DynamoDB renewal path (review2), on a real DynamoDB-API server behind a
 * {@link FaultProxy} on the renewal client only: after tries that timed out (the SDK's API call
 * timeout interrupting the store's renewal threads), the next try on the same store, on the same
 * pooled threads, settles every lease as soon as the service answers again; and a store closed
 * while a try is in flight reports no lease lost.
 */
class RenewalReview2Test {
  private static final String TABLE = "mcpgate_review2_test";
  private static final Duration LONG = Duration.ofMinutes(10);

  private final String tenant = "review2-" + UUID.randomUUID();

  private List<HeldLease> claimed(DynamoDbIdempotencyStore store, int n) {
    List<HeldLease> leases = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      ClaimId id = new ClaimId(tenant, "refund_order", "k" + i + "-" + UUID.randomUUID());
      LeaseToken token = LeaseToken.random();
      assertThat(store.claim(new ClaimRequest(id, "v1:a", token, Duration.ofSeconds(30), LONG)))
          .isInstanceOf(ClaimAttempt.Acquired.class);
      leases.add(new HeldLease(id, token));
    }
    return leases;
  }

  private static Set<LeaseToken> tokens(List<HeldLease> leases) {
    Set<LeaseToken> t = new HashSet<>();
    leases.forEach(l -> t.add(l.token()));
    return t;
  }

  private static DynamoDbIdempotencyStore store(DynamoDbClient main, DynamoDbClient renewals) {
    return DynamoDbIdempotencyStore.builder(main)
        .tableName(TABLE)
        .createSchemaIfMissing(true)
        .renewalClient(renewals)
        .renewalConcurrency(4)
        .build();
  }

  @Test
  void afterTriesThatTimedOutAtTheirDeadlineTheNextTrySettlesEveryLease() throws Exception {
    URI endpoint = URI.create(TestDynamo.endpoint());
    try (FaultProxy proxy = FaultProxy.to(endpoint);
        DynamoDbClient main = TestDynamo.client();
        DynamoDbClient renewals = TestDynamo.client(proxy.relayed(endpoint));
        DynamoDbIdempotencyStore store = store(main, renewals)) {
      List<HeldLease> leases = claimed(store, 8);
      assertThat(store.extendLeases(leases, LONG, Duration.ofSeconds(5)).extended())
          .isEqualTo(tokens(leases));

      // answers that arrive about when the deadline interrupts the request, then none at all
      for (int i = 0; i < 6; i++) {
        proxy.latency(Duration.ofMillis(150 + 20 * i));
        try {
          ExtendedLeases a = store.extendLeases(leases, LONG, Duration.ofMillis(300));
          assertThat(a.extended().size() + a.undecided().size())
              .as("never a lease lost that is held")
              .isEqualTo(leases.size());
        } catch (StoreUnavailableException undecided) {
          // every lease undecided
        }
      }
      proxy.latency(Duration.ZERO);
      proxy.blackholeAll();
      try {
        ExtendedLeases a = store.extendLeases(leases, LONG, Duration.ofMillis(400));
        assertThat(a.extended()).isEmpty();
      } catch (StoreUnavailableException undecided) {
        // every lease undecided
      }
      proxy.restoreAll();

      ExtendedLeases next = store.extendLeases(leases, LONG, Duration.ofSeconds(3));
      assertThat(next.extended()).as("the service answers again").isEqualTo(tokens(leases));
    }
  }

  @Test
  void aStoreClosedWhileATryIsInFlightReportsNoLeaseLost() throws Exception {
    URI endpoint = URI.create(TestDynamo.endpoint());
    try (FaultProxy proxy = FaultProxy.to(endpoint);
        DynamoDbClient main = TestDynamo.client();
        DynamoDbClient renewals = TestDynamo.client(proxy.relayed(endpoint))) {
      DynamoDbIdempotencyStore store = store(main, renewals);
      List<HeldLease> leases = claimed(store, 8);
      assertThat(store.extendLeases(leases, LONG, Duration.ofSeconds(5)).extended()).hasSize(8);
      proxy.latency(Duration.ofMillis(300));
      CompletableFuture<Object> inFlight =
          CompletableFuture.supplyAsync(
              () -> {
                try {
                  return store.extendLeases(leases, LONG, Duration.ofSeconds(3));
                } catch (StoreUnavailableException e) {
                  return e;
                }
              });
      Thread.sleep(150);
      store.close();
      Object answer = inFlight.get(6, TimeUnit.SECONDS);
      if (answer instanceof ExtendedLeases a) {
        assertThat(a.extended().size() + a.undecided().size())
            .as("closing the store is no news about a lease: %s", a)
            .isEqualTo(leases.size());
      }
    }
  }
}
