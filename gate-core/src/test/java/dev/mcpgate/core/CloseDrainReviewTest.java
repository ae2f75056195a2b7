package dev.mcpgate.core;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.core.memory.InMemoryIdempotencyStore;
import dev.mcpgate.core.spi.ClaimAttempt;
import dev.mcpgate.core.spi.ClaimRequest;
import dev.mcpgate.core.spi.ClaimingScope;
import dev.mcpgate.core.spi.IdempotencyStore;
import dev.mcpgate.core.spi.StoredResult;
import dev.mcpgate.core.spi.TransactionScope;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A second review of close()'s drain: each case failed on the drain as first written (an action
 * started after begin() or a single-commit claim in a closing gate, a wait in flight waited for, an
 * interrupted closer that stopped draining, two closing actions waiting for each other).
 */
class CloseDrainReviewTest {
  static final Duration LEASE = Duration.ofMillis(300);
  static final ToolCall CALL =
      ToolCall.of("acme", "refund_order", "k", Map.of("order_id", "ord_9f2"));

  static GatePolicy policy(Duration inFlightWait) {
    return GatePolicy.builder()
        .lease(LEASE)
        .leaseRenewal(Duration.ofMillis(75))
        .inFlightWait(inFlightWait)
        .build();
  }

  static IdempotencyGate gate(IdempotencyStore store, Duration drain) {
    return IdempotencyGate.builder(store).policy(policy(Duration.ZERO)).drainTimeout(drain).build();
  }

  /** Waits until {@code gate} refuses calls: its drain began. */
  static void awaitDraining(IdempotencyGate gate) throws InterruptedException {
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    for (int i = 0; System.nanoTime() < until; i++) {
      GateResult<String> probe =
          gate.execute(
              ToolCall.of("acme", "probe", "p" + i, Map.of()), ResultMapper.utf8(), ctx -> "p");
      if (probe instanceof GateResult.Failed<String> f && f.reason() == FailureReason.GATE_CLOSED) {
        return;
      }
      Thread.sleep(5);
    }
    throw new AssertionError("the gate never began draining");
  }

  /**
   * A unit of work whose begin() blocks (waiting for a pooled connection) until released; its
   * writes go straight to the store.
   */
  static class SlowBeginScope implements TransactionScope<Object> {
    final IdempotencyStore store;
    final CountDownLatch inBegin = new CountDownLatch(1);
    final CountDownLatch go = new CountDownLatch(1);

    SlowBeginScope(IdempotencyStore store) {
      this.store = store;
    }

    @Override
    public Object begin() {
      inBegin.countDown();
      try {
        go.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      return new Object();
    }

    @Override
    public boolean complete(
        Object r, ClaimId id, LeaseToken token, StoredResult result, Duration retention) {
      return store.complete(id, token, result, retention);
    }

    @Override
    public boolean release(Object r, ClaimId id, LeaseToken token) {
      return store.release(id, token);
    }

    @Override
    public void commit(Object r) {}

    @Override
    public void rollback(Object r) {}

    @Override
    public void close(Object r) {}
  }

  /**
   * F1: startable() is checked before AttemptRunner.run; a transactional call that passed it and
   * waits in scope.begin() (a pool connection) when the drain begins starts its action during the
   * drain. The Javadoc says a call inside that had not started its action is GATE_CLOSED.
   */
  @Test
  void aTransactionalCallWaitingInBeginWhenTheDrainBeginsDoesNotStartItsAction() throws Exception {
    InMemoryIdempotencyStore store = InMemoryIdempotencyStore.create();
    IdempotencyGate a = gate(store, Duration.ofHours(1));
    SlowBeginScope scope = new SlowBeginScope(store);
    AtomicInteger effects = new AtomicInteger();
    CompletableFuture<GateResult<String>> call =
        CompletableFuture.supplyAsync(
            () ->
                a.execute(
                    CALL,
                    ResultMapper.utf8(),
                    scope,
                    (r, ctx) -> {
                      effects.incrementAndGet();
                      return "refund";
                    }));
    assertThat(scope.inBegin.await(5, TimeUnit.SECONDS)).isTrue();
    CompletableFuture<Void> closing = CompletableFuture.runAsync(a::close);
    awaitDraining(a);
    scope.go.countDown(); // the connection comes: the drain has begun

    GateResult<String> result = call.get(30, TimeUnit.SECONDS);
    closing.get(30, TimeUnit.SECONDS);
    assertThat(effects).as("no action starts in a closing gate").hasValue(0);
    assertThat(result).isInstanceOf(GateResult.Failed.class);
  }

  /**
   * F1, consequence: the action that started during the drain outlives the drain timeout, its
   * renewals stop, its lease runs out, and a retry elsewhere runs the refund again.
   */
  @Test
  void anActionStartedDuringTheDrainIsNotRunAgainByARetryElsewhere() throws Exception {
    InMemoryIdempotencyStore store = InMemoryIdempotencyStore.create();
    IdempotencyGate a = gate(store, Duration.ofMillis(500));
    SlowBeginScope scope = new SlowBeginScope(store);
    AtomicInteger effects = new AtomicInteger();
    CountDownLatch started = new CountDownLatch(1);
    CountDownLatch finish = new CountDownLatch(1);
    CompletableFuture<GateResult<String>> call =
        CompletableFuture.supplyAsync(
            () ->
                a.execute(
                    CALL,
                    ResultMapper.utf8(),
                    scope,
                    (r, ctx) -> {
                      effects.incrementAndGet();
                      started.countDown();
                      finish.await();
                      return "refund 1";
                    }));
    assertThat(scope.inBegin.await(5, TimeUnit.SECONDS)).isTrue();
    CompletableFuture<Void> closing = CompletableFuture.runAsync(a::close);
    awaitDraining(a);
    scope.go.countDown();
    try (IdempotencyGate b = gate(store, Duration.ofSeconds(10))) {
      if (started.await(5, TimeUnit.SECONDS)) {
        closing.get(30, TimeUnit.SECONDS); // the drain timed out, renewals stopped
        Thread.sleep(LEASE.multipliedBy(3).toMillis());
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
   * F2: executeSingleCommit has no startable() check: a call inside, backing off on another
   * transaction's uncommitted claim, claims during the drain and runs its action.
   */
  @Test
  void aSingleCommitCallInsideAClosingGateDoesNotStartItsAction() throws Exception {
    InMemoryIdempotencyStore store = InMemoryIdempotencyStore.create();
    IdempotencyGate a =
        IdempotencyGate.builder(store)
            .policy(policy(Duration.ofSeconds(60)))
            .drainTimeout(Duration.ofHours(1))
            .build();
    AtomicBoolean busy = new AtomicBoolean(true);
    CountDownLatch metBusy = new CountDownLatch(1);
    ClaimingScope<List<Runnable>> scope =
        new ClaimingScope<>() {
          @Override
          public ClaimAttempt claim(List<Runnable> undo, ClaimRequest request, Duration wait) {
            if (busy.get()) {
              metBusy.countDown();
              throw new ClaimBusyException("another transaction holds it (test)", wait, null);
            }
            return store.claim(request);
          }

          @Override
          public List<Runnable> begin() {
            return new ArrayList<>();
          }

          @Override
          public boolean complete(
              List<Runnable> u, ClaimId id, LeaseToken t, StoredResult r, Duration ret) {
            return store.complete(id, t, r, ret);
          }

          @Override
          public boolean release(List<Runnable> u, ClaimId id, LeaseToken t) {
            return store.release(id, t);
          }

          @Override
          public void commit(List<Runnable> u) {}

          @Override
          public void rollback(List<Runnable> u) {}

          @Override
          public void close(List<Runnable> u) {}
        };
    AtomicInteger effects = new AtomicInteger();
    CompletableFuture<GateResult<String>> call =
        CompletableFuture.supplyAsync(
            () ->
                a.executeSingleCommit(
                    CALL,
                    ResultMapper.utf8(),
                    scope,
                    (r, ctx) -> {
                      effects.incrementAndGet();
                      return "refund";
                    }));
    assertThat(metBusy.await(5, TimeUnit.SECONDS)).isTrue();
    CompletableFuture<Void> closing = CompletableFuture.runAsync(a::close);
    awaitDraining(a);
    busy.set(false); // the other transaction rolled back

    GateResult<String> result = call.get(30, TimeUnit.SECONDS);
    closing.get(30, TimeUnit.SECONDS);
    assertThat(effects).as("no action starts in a closing gate").hasValue(0);
    assertThat(result).isInstanceOf(GateResult.Failed.class);
  }

  /**
   * F3: a call of this gate waiting in flight on another replica's attempt runs nothing and holds
   * no lease, yet close() waits for it (the full drain timeout when the in-flight wait is longer),
   * then WARNs that its lease is no longer renewed.
   */
  @Test
  void closeDoesNotWaitForACallThatOnlyWaitsInFlight() throws Exception {
    InMemoryIdempotencyStore store = InMemoryIdempotencyStore.create();
    IdempotencyGate other = gate(store, Duration.ofSeconds(10));
    CountDownLatch holding = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    CompletableFuture<GateResult<String>> holder =
        CompletableFuture.supplyAsync(
            () ->
                other.execute(
                    CALL,
                    ResultMapper.utf8(),
                    ctx -> {
                      holding.countDown();
                      release.await();
                      return "refund";
                    }));
    assertThat(holding.await(5, TimeUnit.SECONDS)).isTrue();
    IdempotencyGate a =
        IdempotencyGate.builder(store)
            .policy(policy(Duration.ofHours(1)))
            .drainTimeout(Duration.ofHours(1))
            .build();
    CompletableFuture<GateResult<String>> waiter =
        CompletableFuture.supplyAsync(() -> a.execute(CALL, ResultMapper.utf8(), ctx -> "never"));
    Thread.sleep(200); // the waiter waits in flight
    try {
      CompletableFuture.runAsync(a::close).get(30, TimeUnit.SECONDS);
    } finally {
      release.countDown();
      holder.get(30, TimeUnit.SECONDS);
      waiter.get(30, TimeUnit.SECONDS);
      other.close();
    }
  }

  /**
   * F4: close() on a thread whose interrupt flag is set (a shutdown path cancelled by an interrupt)
   * waits for nothing: the running action loses its renewals at once, and a retry elsewhere runs it
   * again; the WARN names the drain timeout as if it had been waited.
   */
  @Test
  void anInterruptedCloserStillDrains() throws Exception {
    InMemoryIdempotencyStore store = InMemoryIdempotencyStore.create();
    IdempotencyGate a = gate(store, Duration.ofSeconds(10));
    AtomicInteger effects = new AtomicInteger();
    CountDownLatch started = new CountDownLatch(1);
    CountDownLatch finish = new CountDownLatch(1);
    CompletableFuture<GateResult<String>> call =
        CompletableFuture.supplyAsync(
            () ->
                a.execute(
                    CALL,
                    ResultMapper.utf8(),
                    ctx -> {
                      effects.incrementAndGet();
                      started.countDown();
                      finish.await();
                      return "refund 1";
                    }));
    assertThat(started.await(5, TimeUnit.SECONDS)).isTrue();
    CompletableFuture<Void> closing =
        CompletableFuture.runAsync(
            () -> {
              Thread.currentThread().interrupt();
              a.close();
              Thread.interrupted();
            });
    try (IdempotencyGate b = gate(store, Duration.ofSeconds(10))) {
      Thread.sleep(LEASE.multipliedBy(4).toMillis());
      b.execute(
          CALL,
          ResultMapper.utf8(),
          ctx -> {
            effects.incrementAndGet();
            return "refund 2";
          });
    } finally {
      finish.countDown();
    }
    call.get(30, TimeUnit.SECONDS);
    closing.get(30, TimeUnit.SECONDS);
    assertThat(effects).as("the refund of one intent ran once").hasValue(1);
  }

  /**
   * F6: two actions of one gate, on two threads, each close it (two "shutdown" tools called at
   * once): each closer excludes only its own thread's call, so each waits for the other, which is
   * itself only waiting in close(): both wait the full drain timeout though no action of the gate
   * does anything.
   */
  @Test
  void twoActionsThatEachCloseTheirGateDoNotWaitForEachOther() throws Exception {
    IdempotencyGate gate = gate(InMemoryIdempotencyStore.create(), Duration.ofHours(1));
    CountDownLatch bothInside = new CountDownLatch(2);
    List<CompletableFuture<GateResult<String>>> closers = new ArrayList<>();
    for (String key : List.of("a", "b")) {
      closers.add(
          CompletableFuture.supplyAsync(
              () ->
                  gate.execute(
                      ToolCall.of("acme", "shutdown", key, Map.of()),
                      ResultMapper.utf8(),
                      ctx -> {
                        bothInside.countDown();
                        bothInside.await();
                        gate.close();
                        return key;
                      })));
    }
    for (CompletableFuture<GateResult<String>> c : closers) {
      assertThat(c.get(30, TimeUnit.SECONDS)).isInstanceOf(GateResult.Executed.class);
    }
  }
}
