package dev.mcpgate.core;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.core.memory.InMemoryIdempotencyStore;
import dev.mcpgate.core.spi.ClaimAttempt;
import dev.mcpgate.core.spi.ClaimRequest;
import dev.mcpgate.core.spi.ForwardingIdempotencyStore;
import dev.mcpgate.core.spi.IdempotencyStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Adversarial review of the renewal budget (branch review): fails on the reviewed HEAD. */
class RenewalReviewTest {
  private final List<AutoCloseable> cleanup = new ArrayList<>();

  @AfterEach
  void cleanUp() throws Exception {
    for (int i = cleanup.size() - 1; i >= 0; i--) {
      cleanup.get(i).close();
    }
  }

  private static ToolCall call(String key) {
    return ToolCall.of("acme", "refund_order", key, Map.of("order_id", "ord_9f2"));
  }

  /**
   * The claim is answered late, or the whole process pauses just after it returns, for part of the
   * lease (here until just after the group's second tick since the claim: 0.5 to 1 s of a 1 s
   * lease, which the design says is covered). The renewal then joins its group and is first renewed
   * at the group's next tick, a period later; the check before the action asks the store only once
   * the lease has run out by the clock, so it starts the action unconfirmed. The lease runs out
   * before the first renewal, the other replica takes the key over and runs the action too. (Any
   * claim that takes more than L - p, 3.75 s by default, can do this; "a healthy action always has
   * at least L - p left" holds only from its first renewal.)
   */
  @Test
  void aClaimAnsweredLateButWithinTheLeaseIsRenewedBeforeItCanLapse() throws Exception {
    InMemoryIdempotencyStore shared = InMemoryIdempotencyStore.create();
    java.util.concurrent.BlockingQueue<Long> ticks =
        new java.util.concurrent.LinkedBlockingQueue<>();
    GatePolicy policy =
        GatePolicy.builder()
            .lease(Duration.ofMillis(1000))
            .leaseRenewal(Duration.ofMillis(500))
            .inFlightWait(Duration.ZERO)
            .build();
    IdempotencyStore slowAnswers =
        new ForwardingIdempotencyStore(shared) {
          @Override
          public ClaimAttempt claim(ClaimRequest request) {
            ticks.clear();
            ClaimAttempt attempt = super.claim(request);
            if (attempt instanceof ClaimAttempt.Acquired && request.id().key().equals("k")) {
              // the answer is on its way (or the process is paused) until just after the
              // group's second tick since the claim: between 500 ms and 1 s, less than the lease
              try {
                ticks.poll(5, TimeUnit.SECONDS);
                ticks.poll(5, TimeUnit.SECONDS);
                Thread.sleep(10);
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
            }
            return attempt;
          }

          @Override
          public dev.mcpgate.core.spi.ExtendedLeases extendLeases(
              List<dev.mcpgate.core.spi.HeldLease> leases, Duration lease, Duration within) {
            ticks.offer(System.nanoTime());
            return super.extendLeases(leases, lease, within);
          }
        };
    IdempotencyGate a = IdempotencyGate.builder(slowAnswers).policy(policy).build();
    IdempotencyGate b = IdempotencyGate.builder(shared).policy(policy).build();
    cleanup.add(a);
    cleanup.add(b);
    // the renewal group of A already exists, with its own phase, as in a busy gate
    CountDownLatch warm = new CountDownLatch(1);
    Thread warmer =
        new Thread(
            () ->
                a.execute(
                    call("warm"),
                    ResultMapper.utf8(),
                    ctx -> {
                      warm.await(30, TimeUnit.SECONDS);
                      return "warm";
                    }));
    warmer.start();
    cleanup.add(warm::countDown);
    Thread.sleep(1_000);

    AtomicInteger effects = new AtomicInteger();
    CountDownLatch started = new CountDownLatch(1);
    java.util.concurrent.atomic.AtomicReference<Throwable> aFailure =
        new java.util.concurrent.atomic.AtomicReference<>();
    Thread holder =
        new Thread(
            () -> {
              try {
                a.execute(
                        call("k"),
                        ResultMapper.utf8(),
                        ctx -> {
                          effects.incrementAndGet();
                          started.countDown();
                          Thread.sleep(2_000);
                          return "by-a";
                        })
                    .orThrow();
              } catch (RuntimeException e) {
                aFailure.set(e);
              }
            });
    holder.start();
    while (shared.find(call("k").id()).isEmpty()) { // A's claim is in (its answer is not)
      Thread.sleep(1);
    }
    while (holder.isAlive()) {
      b.execute(
          call("k"),
          ResultMapper.utf8(),
          ctx -> {
            effects.incrementAndGet();
            return "by-b";
          });
      Thread.sleep(10);
    }
    warm.countDown();
    warmer.join(5_000);

    // A's claim answer may come after its lease ran out (two ticks can be a whole lease apart):
    // then A must not run (its check finds the key taken over), and B runs it; either way, once
    assertThat(effects).as("the action ran once").hasValue(1);
    if (started.getCount() != 0) {
      assertThat(aFailure.get())
          .as("A did not run, and was told so")
          .isInstanceOfSatisfying(
              GateOutcomeException.class,
              e ->
                  assertThat(((GateResult.Failed<?>) e.result()).reason())
                      .isEqualTo(FailureReason.LEASE_LOST))
          .hasMessageContaining("did not run");
    }
  }
}
