package dev.mcpgate.dynamodb;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.mcpgate.core.ClaimId;
import dev.mcpgate.core.LeaseToken;
import dev.mcpgate.core.StoreUnavailableException;
import dev.mcpgate.core.spi.ClaimAttempt;
import dev.mcpgate.core.spi.ClaimRequest;
import dev.mcpgate.core.spi.ExtendedLeases;
import dev.mcpgate.core.spi.HeldLease;
import dev.mcpgate.core.spi.StoredResult;
import dev.mcpgate.store.tck.fault.FaultProxy;
import dev.mcpgate.store.tck.fault.Link;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.exception.AbortedException;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemRequest;

/**
 * The renewal path's deadline on a real DynamoDB-API server ({@code extendLeases(leases, lease,
 * within)}): a renewal whose client cannot reach the service answers within about {@code within},
 * one lease or many, and abandons its connections (they are not used again); a lease whose request
 * fails or hangs is undecided while the others are told; and a renewal is never queued behind the
 * requests of an earlier one that hangs. The faults are {@code gate-store-tck}'s {@link FaultProxy}
 * with every connection black-holed from the start (accepted, and never answered), and an SDK
 * interceptor on the renewal client that fails or holds the request of one item.
 */
class DynamoDbRenewalFaultsTest {
  private static final String TABLE = "mcpgate_renewal_faults_test";
  private static final Duration LONG = Duration.ofMinutes(10);

  /**
   * What a deadline may overrun by on a loaded 2-core machine: a bound that the call answered by,
   * not a timing.
   */
  private static final Duration SLACK = Duration.ofSeconds(2);

  private final String tenant = "renewal-faults-" + UUID.randomUUID();

  private static Duration since(long startNanos) {
    return Duration.ofNanos(System.nanoTime() - startNanos);
  }

  private DynamoDbIdempotencyStore store(
      DynamoDbClient main, DynamoDbClient renewals, int threads) {
    return DynamoDbIdempotencyStore.builder(main)
        .tableName(TABLE)
        .createSchemaIfMissing(true)
        .renewalClient(renewals)
        .renewalConcurrency(threads)
        .build();
  }

  private List<HeldLease> claimed(DynamoDbIdempotencyStore store, String prefix, int n) {
    List<HeldLease> leases = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      ClaimId id = new ClaimId(tenant, "refund_order", prefix + i);
      LeaseToken token = LeaseToken.random();
      assertThat(store.claim(new ClaimRequest(id, "v1:a", token, Duration.ofSeconds(30), LONG)))
          .isInstanceOf(ClaimAttempt.Acquired.class);
      leases.add(new HeldLease(id, token));
    }
    return leases;
  }

  private static Set<LeaseToken> tokens(List<HeldLease> leases) {
    Set<LeaseToken> tokens = new HashSet<>();
    leases.forEach(l -> tokens.add(l.token()));
    return tokens;
  }

  @Test
  void extensionsRunOnTheCallersRenewalExecutorAndOneThatRefusesIsToldAsSuch() {
    java.util.concurrent.ExecutorService pool =
        java.util.concurrent.Executors.newCachedThreadPool(
            dev.mcpgate.core.spi.DaemonThreads.named("users-renewals"));
    Set<String> ranOn = java.util.concurrent.ConcurrentHashMap.newKeySet();
    java.util.concurrent.atomic.AtomicBoolean refusing =
        new java.util.concurrent.atomic.AtomicBoolean();
    DynamoDbClient client = TestDynamo.client();
    try (DynamoDbIdempotencyStore store =
        DynamoDbIdempotencyStore.builder(client)
            .tableName(TABLE)
            .createSchemaIfMissing(true)
            .renewalConcurrency(4)
            .renewalExecutor(
                task -> {
                  if (refusing.get()) {
                    throw new java.util.concurrent.RejectedExecutionException("full (test)");
                  }
                  pool.execute(
                      () -> {
                        ranOn.add(Thread.currentThread().getName());
                        task.run();
                      });
                })
            .build()) {
      List<HeldLease> leases = claimed(store, "exec", 8);
      assertThat(store.extendLeases(leases, LONG, Duration.ofSeconds(10)).extended())
          .containsExactlyInAnyOrderElementsOf(tokens(leases));
      assertThat(ranOn).isNotEmpty().allMatch(n -> n.startsWith("users-renewals-"));

      refusing.set(true);
      assertThatThrownBy(() -> store.extendLeases(leases, LONG, Duration.ofSeconds(10)))
          .isInstanceOf(StoreUnavailableException.class)
          .hasMessageContaining("renewal executor refused")
          .hasMessageContaining("nothing was sent");
    } finally {
      pool.shutdownNow();
    }
    assertThat(pool.isShutdown()).isTrue(); // closed by the test, not by the store
  }

  @Test
  void aRenewalThatCannotReachTheServiceAnswersWithinItsDeadlineAndAbandonsItsConnections()
      throws Exception {
    try (FaultProxy proxy = FaultProxy.to(URI.create(TestDynamo.endpoint()))) {
      proxy.blackholeNew(true); // every connection is accepted, and never a byte in reply
      try (DynamoDbClient main = TestDynamo.client();
          DynamoDbClient dead =
              TestDynamo.client(proxy.relayed(URI.create(TestDynamo.endpoint())));
          DynamoDbIdempotencyStore store = store(main, dead, 16)) {
        List<HeldLease> one = claimed(store, "silent-one-", 1);
        List<HeldLease> many = claimed(store, "silent-many-", 8);
        for (List<HeldLease> leases : List.of(one, many)) {
          Duration within = Duration.ofMillis(500);
          long sent = System.nanoTime();
          assertThatThrownBy(() -> store.extendLeases(leases, LONG, within))
              .isInstanceOf(StoreUnavailableException.class)
              .hasMessageContaining("within 500 ms");
          assertThat(since(sent))
              .as("%d lease(s): answered by the deadline", leases.size())
              .isLessThan(within.plus(SLACK));
        }

        long deadline = System.nanoTime() + SLACK.toNanos();
        while (!proxy.links().stream().allMatch(Link::clientClosed)
            && System.nanoTime() < deadline) {
          Thread.sleep(20);
        }
        assertThat(proxy.links()).isNotEmpty();
        assertThat(proxy.links())
            .as("every connection a timed-out request was on is closed, not kept for another")
            .allMatch(Link::clientClosed);
      }
    }
  }

  /**
   * Fails the renewal requests of one item at once and holds those of another until they are
   * interrupted (the request's API call timeout) or released.
   */
  private static final class FaultyItems implements ExecutionInterceptor {
    final Set<String> failing = new HashSet<>();
    final Set<String> hanging = new HashSet<>();
    final CountDownLatch release = new CountDownLatch(1);

    @Override
    public void beforeTransmission(
        Context.BeforeTransmission context, ExecutionAttributes attributes) {
      if (!(context.request() instanceof UpdateItemRequest update)) {
        return;
      }
      String pk = update.key().get("pk").s();
      if (failing.contains(pk)) {
        throw SdkClientException.create("the network dropped this item's renewal");
      }
      if (hanging.contains(pk)) {
        try {
          release.await();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw AbortedException.create("the request timed out");
        }
      }
    }
  }

  @Test
  void aLeaseWhoseRequestFailsOrHangsIsUndecidedAndTheOthersAreTold() throws Exception {
    FaultyItems faults = new FaultyItems();
    try (DynamoDbClient main = TestDynamo.client();
        DynamoDbClient renewals = TestDynamo.client(faults);
        DynamoDbIdempotencyStore store = store(main, renewals, 4)) {
      List<HeldLease> fine = claimed(store, "fine-", 6);
      HeldLease failing = claimed(store, "failing-", 1).get(0);
      HeldLease hanging = claimed(store, "hanging-", 1).get(0);
      HeldLease completed = claimed(store, "completed-", 1).get(0);
      assertThat(
              store.complete(
                  completed.id(),
                  completed.token(),
                  new StoredResult(
                      StoredResult.Kind.VALUE, "done".getBytes(StandardCharsets.UTF_8)),
                  LONG))
          .isTrue();
      faults.failing.add(store.partitionValue(failing.id()));
      faults.hanging.add(store.partitionValue(hanging.id()));
      List<HeldLease> all = new ArrayList<>(fine);
      all.addAll(List.of(failing, hanging, completed));

      Duration within = Duration.ofSeconds(1);
      long sent = System.nanoTime();
      ExtendedLeases answer = store.extendLeases(all, LONG, within);

      assertThat(since(sent)).as("answered by the deadline").isLessThan(within.plus(SLACK));
      assertThat(answer.extended()).isEqualTo(tokens(fine));
      assertThat(answer.undecided()).containsExactlyInAnyOrder(failing.token(), hanging.token());
      assertThat(answer.isLost(completed.token())).as("completed: no longer held").isTrue();
    } finally {
      faults.release.countDown();
    }
  }

  @Test
  void aRenewalIsNotQueuedBehindTheRequestsOfAnEarlierOneThatHangs() throws Exception {
    FaultyItems faults = new FaultyItems();
    try (DynamoDbClient main = TestDynamo.client();
        DynamoDbClient renewals = TestDynamo.client(faults);
        DynamoDbIdempotencyStore store = store(main, renewals, 1)) {
      List<HeldLease> stuck = claimed(store, "stuck-", 2);
      List<HeldLease> fine = claimed(store, "next-", 2);
      stuck.forEach(l -> faults.hanging.add(store.partitionValue(l.id())));

      CompletableFuture<Object> first =
          CompletableFuture.supplyAsync(
              () -> {
                try {
                  return store.extendLeases(stuck, LONG, Duration.ofSeconds(5));
                } catch (StoreUnavailableException e) {
                  return e;
                }
              });
      Thread.sleep(200); // its one sender waits on the hanging request

      long sent = System.nanoTime();
      ExtendedLeases next = store.extendLeases(fine, LONG, Duration.ofSeconds(3));
      assertThat(next.extended())
          .as("sent on threads of its own, not after the first call's")
          .isEqualTo(tokens(fine));
      assertThat(since(sent)).isLessThan(Duration.ofSeconds(3));

      assertThat(first.get(5 + SLACK.toSeconds(), TimeUnit.SECONDS))
          .as("the first call gives up at its deadline")
          .isInstanceOf(StoreUnavailableException.class);
    } finally {
      faults.release.countDown();
    }
  }
}
