package dev.mcpgate.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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
  private static final Duration LEASE = CloseDrainReviewTest.LEASE;
  private static final ToolCall CALL = CloseDrainReviewTest.CALL;

  private static IdempotencyGate gate(InMemoryIdempotencyStore store, Duration drain) {
    return CloseDrainReviewTest.gate(store, drain);
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

  /**
   * Review: a call that entered before the drain began, waiting in flight on another attempt, took
   * the key during the drain and started its action, whose renewals then stopped at the drain
   * timeout: a retry elsewhere ran it again. A call inside a closing gate starts no action now (a
   * waiting one stops waiting, and one that acquires is released).
   */
  @Test
  void aCallThatAcquiresTheKeyWhileTheGateDrainsDoesNotStartItsAction() throws Exception {
    InMemoryIdempotencyStore store = InMemoryIdempotencyStore.create();
    AtomicInteger effects = new AtomicInteger();
    CountDownLatch holderStarted = new CountDownLatch(1);
    CountDownLatch holderGo = new CountDownLatch(1);
    IdempotencyGate a =
        IdempotencyGate.builder(store)
            .policy(CloseDrainReviewTest.policy(Duration.ofSeconds(20)))
            .drainTimeout(Duration.ofSeconds(20))
            .build();
    CompletableFuture<GateResult<String>> holder =
        CompletableFuture.supplyAsync(
            () ->
                a.execute(
                    CALL,
                    ResultMapper.utf8(),
                    ctx -> {
                      holderStarted.countDown();
                      holderGo.await();
                      throw new IllegalStateException("declined: nothing happened (test)");
                    }));
    assertThat(holderStarted.await(5, TimeUnit.SECONDS)).isTrue();
    CompletableFuture<GateResult<String>> waiter =
        CompletableFuture.supplyAsync(
            () ->
                a.execute(
                    CALL,
                    ResultMapper.utf8(),
                    ctx -> {
                      effects.incrementAndGet();
                      return "refund";
                    }));
    Thread.sleep(300); // the waiter waits in flight on the holder
    CompletableFuture<Void> closing = CompletableFuture.runAsync(a::close);
    Thread.sleep(300); // the drain began
    holderGo.countDown(); // the holder fails, its claim is released, the waiter takes the key

    assertThat(waiter.get(10, TimeUnit.SECONDS))
        .isInstanceOfSatisfying(
            GateResult.Failed.class,
            f -> {
              assertThat(f.reason()).isEqualTo(FailureReason.GATE_CLOSED);
              assertThat(f.retrySafe()).isTrue();
            });
    assertThat(effects).as("no action started in a closing gate").hasValue(0);
    holder.get(10, TimeUnit.SECONDS);
    closing.get(10, TimeUnit.SECONDS);
    assertThat(store.find(CALL.id())).as("no claim left behind: a retry runs at once").isEmpty();
  }

  /**
   * Review: two closers, an action closing its own gate and a shutdown thread, shared one count of
   * the closing thread's own calls, so the action's close waited for itself.
   */
  @Test
  void anActionThatClosesItsGateBesideAnotherCloserIsNotWaitedFor() throws Exception {
    IdempotencyGate gate = gate(InMemoryIdempotencyStore.create(), Duration.ofHours(1));
    CountDownLatch otherStarted = new CountDownLatch(1);
    CountDownLatch otherGo = new CountDownLatch(1);
    CountDownLatch closingInside = new CountDownLatch(1);
    CompletableFuture<GateResult<String>> other =
        CompletableFuture.supplyAsync(
            () ->
                gate.execute(
                    ToolCall.of("acme", "refund_order", "b", Map.of()),
                    ResultMapper.utf8(),
                    ctx -> {
                      otherStarted.countDown();
                      otherGo.await();
                      return "b";
                    }));
    assertThat(otherStarted.await(5, TimeUnit.SECONDS)).isTrue();
    CompletableFuture<GateResult<String>> closer =
        CompletableFuture.supplyAsync(
            () ->
                gate.execute(
                    ToolCall.of("acme", "refund_order", "a", Map.of()),
                    ResultMapper.utf8(),
                    ctx -> {
                      closingInside.countDown();
                      gate.close(); // waits for "b", not for itself
                      return "a";
                    }));
    assertThat(closingInside.await(5, TimeUnit.SECONDS)).isTrue();
    Thread.sleep(200);
    CompletableFuture<Void> shutdown = CompletableFuture.runAsync(gate::close);
    Thread.sleep(200);
    otherGo.countDown();

    other.get(30, TimeUnit.SECONDS);
    assertThat(closer.get(30, TimeUnit.SECONDS)).isInstanceOf(GateResult.Executed.class);
    shutdown.get(30, TimeUnit.SECONDS);
  }

  @Test
  void aStepByStepClaimOnAClosedGateIsRefused() {
    IdempotencyGate gate = gate(InMemoryIdempotencyStore.create(), Duration.ofSeconds(10));
    gate.close();
    assertThatThrownBy(() -> gate.claim(CALL))
        .isInstanceOf(IdempotencyException.class)
        .hasMessageContaining("the gate is closed");
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
