package dev.mcpgate.core;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.core.memory.InMemoryIdempotencyStore;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Closing a gate while one of its actions runs (a stdio server, an application shut down mid-call)
 * stopped that action's renewals at once: its lease ran out while it ran, and a retry on another
 * replica took the key over and ran the effect a second time (found in review). {@code close()} now
 * refuses new calls and waits for the running ones, their leases renewed, up to its drain timeout.
 */
class CloseDrainsRunningActionsTest {
  private static final Duration LEASE = Duration.ofMillis(300);
  private static final ToolCall CALL =
      ToolCall.of("acme", "refund_order", "k", Map.of("order_id", "ord_9f2"));

  private static IdempotencyGate gate(InMemoryIdempotencyStore store, Duration drain) {
    return IdempotencyGate.builder(store)
        .policy(
            GatePolicy.builder()
                .lease(LEASE)
                .leaseRenewal(Duration.ofMillis(75))
                .inFlightWait(Duration.ZERO)
                .build())
        .drainTimeout(drain)
        .build();
  }

  @Test
  void aRunningActionOfAClosingGateKeepsItsLeaseAndNoRetryRunsItAgain() throws Exception {
    InMemoryIdempotencyStore store = InMemoryIdempotencyStore.create();
    AtomicInteger effects = new AtomicInteger();
    CountDownLatch started = new CountDownLatch(1);
    IdempotencyGate a = gate(store, Duration.ofSeconds(10));
    try (IdempotencyGate b = gate(store, Duration.ofSeconds(10))) {
      CompletableFuture<GateResult<String>> first =
          CompletableFuture.supplyAsync(
              () ->
                  a.execute(
                      CALL,
                      ResultMapper.utf8(),
                      ctx -> {
                        effects.incrementAndGet();
                        started.countDown();
                        Thread.sleep(1_500); // longer than the lease
                        return "refund 1";
                      }));
      assertThat(started.await(5, TimeUnit.SECONDS)).isTrue();
      CompletableFuture<Void> closing = CompletableFuture.runAsync(a::close);
      Thread.sleep(LEASE.multipliedBy(3).toMillis());

      assertThat(closing).as("close() waits for the running action").isNotDone();
      assertThat(a.execute(CALL, ResultMapper.utf8(), ctx -> "never"))
          .as("a call that reaches the closing gate")
          .isInstanceOfSatisfying(
              GateResult.Failed.class,
              f -> assertThat(f.reason()).isEqualTo(FailureReason.GATE_CLOSED));
      GateResult<String> retry =
          b.execute(
              CALL,
              ResultMapper.utf8(),
              ctx -> {
                effects.incrementAndGet();
                return "refund 2";
              });
      assertThat(retry).as("the retry elsewhere").isInstanceOf(GateResult.Refused.class);

      assertThat(first.get(5, TimeUnit.SECONDS)).isInstanceOf(GateResult.Executed.class);
      closing.get(5, TimeUnit.SECONDS);
      assertThat(effects).as("the refund of one intent ran once").hasValue(1);
    }
  }

  @Test
  void anActionThatClosesItsOwnGateIsNotWaitedFor() throws Exception {
    IdempotencyGate a = gate(InMemoryIdempotencyStore.create(), Duration.ofHours(1));
    CompletableFuture<GateResult<String>> call =
        CompletableFuture.supplyAsync(
            () ->
                a.execute(
                    CALL,
                    ResultMapper.utf8(),
                    ctx -> {
                      a.close(); // a "shut down" tool: waiting for itself would wait the hour
                      return "closed";
                    }));
    assertThat(call.get(30, TimeUnit.SECONDS)).isInstanceOf(GateResult.Executed.class);
  }

  @Test
  void closeWaitsNoLongerThanItsDrainTimeout() throws Exception {
    InMemoryIdempotencyStore store = InMemoryIdempotencyStore.create();
    CountDownLatch started = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    IdempotencyGate a = gate(store, Duration.ofMillis(200));
    CompletableFuture<GateResult<String>> first =
        CompletableFuture.supplyAsync(
            () ->
                a.execute(
                    CALL,
                    ResultMapper.utf8(),
                    ctx -> {
                      started.countDown();
                      release.await();
                      return "refund 1";
                    }));
    assertThat(started.await(5, TimeUnit.SECONDS)).isTrue();
    CompletableFuture<Void> closing = CompletableFuture.runAsync(a::close);
    try {
      closing.get(5, TimeUnit.SECONDS); // returns after its 200 ms, the action still running
      assertThat(first).isNotDone();
      assertThat(a.engine().renewing()).as("renewals stopped after the drain timeout").isZero();
    } finally {
      release.countDown();
    }
  }
}
