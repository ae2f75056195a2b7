package dev.mcpgate.core;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.core.memory.InMemoryIdempotencyStore;
import dev.mcpgate.core.spi.ExtendedLeases;
import dev.mcpgate.core.spi.ForwardingIdempotencyStore;
import dev.mcpgate.core.spi.HeldLease;
import dev.mcpgate.core.spi.IdempotencyStore;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * A third review of close()'s drain: the runner read isDraining() before confirmBeforeAction, whose
 * store round trip can straddle the start of the drain, and a YES then started the action in a
 * closing gate (it is read after the confirmation too now); and a step claim refused while closing
 * was told "released" though its release had failed.
 */
class CloseDrainThirdReviewTest {
  private static final Duration LEASE = Duration.ofSeconds(2);
  private static final ToolCall CALL =
      ToolCall.of("acme", "refund_order", "k", Map.of("order_id", "ord_9f2"));

  private static IdempotencyGate gate(IdempotencyStore store, Duration drain) {
    return IdempotencyGate.builder(store)
        .policy(
            GatePolicy.builder()
                .lease(LEASE)
                .leaseRenewal(Duration.ofMillis(500))
                .inFlightWait(Duration.ZERO)
                .build())
        .drainTimeout(drain)
        .build();
  }

  /** Renewals answer undecided while begin() waits; the confirmation after begin() is held. */
  static final class HeldConfirmStore extends ForwardingIdempotencyStore {
    volatile boolean begun;
    final CountDownLatch inConfirm = new CountDownLatch(1);
    final CountDownLatch goConfirm = new CountDownLatch(1);

    HeldConfirmStore(IdempotencyStore d) {
      super(d);
    }

    @Override
    public ExtendedLeases extendLeases(List<HeldLease> leases, Duration lease, Duration within) {
      if (!begun) {
        Set<LeaseToken> undecided =
            leases.stream().map(HeldLease::token).collect(Collectors.toSet());
        return new ExtendedLeases(Set.of(), undecided);
      }
      inConfirm.countDown();
      try {
        goConfirm.await(10, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      return super.extendLeases(leases, lease, within);
    }
  }

  /** begin() takes 1.2 s, the lease not renewed meanwhile; then the confirmation is held. */
  static final class SlowBegin extends CloseDrainReviewTest.SlowBeginScope {
    private final HeldConfirmStore held;

    SlowBegin(HeldConfirmStore store) {
      super(store);
      this.held = store;
    }

    @Override
    public Object begin() {
      try {
        Thread.sleep(1200); // a pooled connection: the lease is not renewed meanwhile
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      held.begun = true;
      return new Object();
    }
  }

  @Test
  void aDrainThatBeginsDuringTheLeaseConfirmationStartsNoAction() throws Exception {
    InMemoryIdempotencyStore mem = InMemoryIdempotencyStore.create();
    HeldConfirmStore store = new HeldConfirmStore(mem);
    IdempotencyGate a = gate(store, Duration.ofSeconds(1));
    AtomicInteger effects = new AtomicInteger();
    CountDownLatch started = new CountDownLatch(1);
    CountDownLatch finish = new CountDownLatch(1);
    CompletableFuture<GateResult<String>> call =
        CompletableFuture.supplyAsync(
            () ->
                a.execute(
                    CALL,
                    ResultMapper.utf8(),
                    new SlowBegin(store),
                    (r, ctx) -> {
                      effects.incrementAndGet();
                      started.countDown();
                      finish.await();
                      return "refund 1";
                    }));
    assertThat(store.inConfirm.await(10, TimeUnit.SECONDS)).isTrue();
    CompletableFuture<Void> closing = CompletableFuture.runAsync(a::close);
    CloseDrainReviewTest.awaitDraining(a);
    store.goConfirm.countDown(); // the confirmation answers: the drain has begun
    try (IdempotencyGate b = gate(mem, Duration.ofSeconds(10))) {
      if (started.await(5, TimeUnit.SECONDS)) {
        closing.get(30, TimeUnit.SECONDS); // the drain timed out, renewals stopped
        Thread.sleep(LEASE.multipliedBy(2).toMillis());
        b.execute(
            CALL,
            ResultMapper.utf8(),
            ctx -> {
              effects.incrementAndGet();
              return "refund 2";
            });
      }
    } finally {
      finish.countDown();
    }
    call.get(30, TimeUnit.SECONDS);
    closing.get(30, TimeUnit.SECONDS);
    assertThat(effects.get())
        .as("the refund of one intent ran at most once")
        .isLessThanOrEqualTo(1);
  }

  /**
   * The step claim acquired while closing is "released" even when the store refused the release.
   */
  @Test
  void aStepClaimReleasedWhileClosingIsNotToldReleasedWhenTheReleaseFailed() throws Exception {
    InMemoryIdempotencyStore mem = InMemoryIdempotencyStore.create();
    CountDownLatch inClaim = new CountDownLatch(1);
    CountDownLatch goClaim = new CountDownLatch(1);
    IdempotencyStore store =
        new ForwardingIdempotencyStore(mem) {
          @Override
          public dev.mcpgate.core.spi.ClaimAttempt claim(dev.mcpgate.core.spi.ClaimRequest r) {
            if (r.id().tool().equals("refund_order")) {
              inClaim.countDown();
              try {
                goClaim.await(10, TimeUnit.SECONDS);
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
            }
            return super.claim(r);
          }

          @Override
          public boolean release(ClaimId id, LeaseToken token) {
            throw new StoreUnavailableException("release refused (test)", null);
          }
        };
    IdempotencyGate a = gate(store, Duration.ofHours(1));
    CompletableFuture<Object> step =
        CompletableFuture.supplyAsync(
            () -> {
              try {
                return a.claim(CALL);
              } catch (RuntimeException e) {
                return e;
              }
            });
    assertThat(inClaim.await(10, TimeUnit.SECONDS)).isTrue();
    CompletableFuture<Void> closing = CompletableFuture.runAsync(a::close);
    CloseDrainReviewTest.awaitDraining(a);
    goClaim.countDown();
    Object answer = step.get(30, TimeUnit.SECONDS);
    closing.get(30, TimeUnit.SECONDS);
    assertThat(mem.find(CALL.id()).orElseThrow().state())
        .as("the claim was not released: the store refused")
        .isEqualTo(dev.mcpgate.core.spi.ClaimState.IN_PROGRESS);
    assertThat(answer).isInstanceOf(RuntimeException.class);
    assertThat(((RuntimeException) answer).getMessage())
        .as("what the caller is told must be true")
        .doesNotContain("it was released");
  }
}
