package dev.mcpgate.core;

import static dev.mcpgate.core.Failures.failed;
import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.core.memory.InMemoryIdempotencyStore;
import dev.mcpgate.core.spi.ExtendedLeases;
import dev.mcpgate.core.spi.ForwardingIdempotencyStore;
import dev.mcpgate.core.spi.HeldLease;
import dev.mcpgate.core.spi.IdempotencyStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.RunnableScheduledFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * Liveness that does not depend on the action's resources: each gate renews on a thread of its own,
 * one store call per period renews every running action, a slow store cannot starve another gate's
 * renewals, closing a gate stops its thread, and the one case left (a pause of the whole holder
 * longer than its lease) is fenced.
 */
class LivenessTest {
  private static final GatePolicy SHORT =
      GatePolicy.builder()
          .lease(Duration.ofMillis(400))
          .leaseRenewal(Duration.ofMillis(100))
          .inFlightWait(Duration.ZERO)
          .build();

  private static ToolCall call(String key) {
    return ToolCall.of("acme", "refund_order", key, Map.of("order_id", "ord_9f2"));
  }

  /** Counts the store's renewal calls and the leases in them; can make each call slow. */
  private static final class RenewalStore extends ForwardingIdempotencyStore {
    final AtomicInteger calls = new AtomicInteger();
    final AtomicInteger leases = new AtomicInteger();
    volatile long slowMillis;

    RenewalStore(IdempotencyStore delegate) {
      super(delegate);
    }

    @Override
    public ExtendedLeases extendLeases(List<HeldLease> held, Duration lease, Duration within) {
      calls.incrementAndGet();
      leases.addAndGet(held.size());
      if (slowMillis > 0) {
        try {
          Thread.sleep(slowMillis);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
      return super.extendLeases(held, lease, within);
    }
  }

  /**
   * Retries {@code key} every 50 ms while {@code holder} runs, counting the runs of the retries'
   * action in {@code runs}.
   */
  private static List<GateResult<String>> retryWhileRunning(
      IdempotencyGate gate, String key, Thread holder, AtomicInteger runs)
      throws InterruptedException {
    List<GateResult<String>> retries = new ArrayList<>();
    while (holder.isAlive()) {
      retries.add(
          gate.execute(
              call(key),
              ResultMapper.utf8(),
              ctx -> {
                runs.incrementAndGet();
                return "again";
              }));
      Thread.sleep(50);
    }
    return retries;
  }

  @Test
  void aSlowStoreDoesNotStarveTheRenewalsOfAnotherGate() throws Exception {
    RenewalStore slow = new RenewalStore(InMemoryIdempotencyStore.create());
    slow.slowMillis = 3_000;
    IdempotencyGate slowGate = IdempotencyGate.builder(slow).policy(SHORT).build();
    IdempotencyGate healthy =
        IdempotencyGate.builder(InMemoryIdempotencyStore.create()).policy(SHORT).build();
    ExecutorService pool = Executors.newFixedThreadPool(3);
    try {
      // two actions on the slow store keep its renewals busy for seconds
      for (int i = 0; i < 2; i++) {
        String key = "slow-" + i;
        pool.submit(
            () ->
                slowGate.execute(
                    call(key),
                    ResultMapper.utf8(),
                    ctx -> {
                      Thread.sleep(2_000);
                      return "slow";
                    }));
      }
      Thread.sleep(150);
      AtomicInteger runs = new AtomicInteger();
      CountDownLatch started = new CountDownLatch(1);
      Thread holder =
          new Thread(
              () ->
                  healthy.execute(
                      call("k"),
                      ResultMapper.utf8(),
                      ctx -> {
                        runs.incrementAndGet();
                        started.countDown();
                        Thread.sleep(1_500); // almost four leases
                        return "refund-1";
                      }));
      holder.start();
      assertThat(started.await(5, TimeUnit.SECONDS)).isTrue();
      List<GateResult<String>> retries = retryWhileRunning(healthy, "k", holder, runs);

      assertThat(runs).as("the healthy gate's live action ran once").hasValue(1);
      assertThat(retries)
          .isNotEmpty()
          .allSatisfy(
              r ->
                  assertThat(r)
                      .isInstanceOfAny(GateResult.Refused.class, GateResult.Replayed.class));
    } finally {
      pool.shutdownNow();
      slowGate.close();
      healthy.close();
    }
  }

  @Test
  void oneRenewalCallPerPeriodRenewsEveryRunningAction() throws Exception {
    RenewalStore store = new RenewalStore(InMemoryIdempotencyStore.create());
    int actions = 40;
    IdempotencyGate gate = IdempotencyGate.builder(store).policy(SHORT).build();
    ExecutorService pool = Executors.newFixedThreadPool(actions);
    try {
      CountDownLatch running = new CountDownLatch(actions);
      CountDownLatch release = new CountDownLatch(1);
      List<Future<GateResult<String>>> results = new ArrayList<>();
      for (int i = 0; i < actions; i++) {
        String key = "k-" + i;
        results.add(
            pool.submit(
                () ->
                    gate.execute(
                        call(key),
                        ResultMapper.utf8(),
                        ctx -> {
                          running.countDown();
                          release.await();
                          return "done";
                        })));
      }
      assertThat(running.await(10, TimeUnit.SECONDS)).isTrue();
      int callsBefore = store.calls.get();
      int leasesBefore = store.leases.get();
      Thread.sleep(1_000); // about ten periods with all forty running
      int calls = store.calls.get() - callsBefore;
      int leases = store.leases.get() - leasesBefore;
      release.countDown();
      for (Future<GateResult<String>> r : results) {
        assertThat(r.get(10, TimeUnit.SECONDS)).isInstanceOf(GateResult.Executed.class);
      }

      assertThat(calls).as("renewal calls in one second").isPositive();
      assertThat(leases).as("each call renewed every running action").isEqualTo(calls * actions);
      assertThat(gate.engine().renewing()).isZero();
    } finally {
      pool.shutdownNow();
      gate.close();
    }
  }

  private static List<Thread> renewerThreads() {
    return Thread.getAllStackTraces().keySet().stream()
        .filter(t -> t.getName().startsWith("mcpgate-lease-renewer-") && t.isAlive())
        .toList();
  }

  @Test
  void closingTheGateStopsItsRenewalThreadAndRefusesNewCalls() throws Exception {
    IdempotencyGate gate =
        IdempotencyGate.builder(InMemoryIdempotencyStore.create()).policy(SHORT).build();
    AtomicReference<Thread> renewer = new AtomicReference<>();
    List<Thread> before = renewerThreads();
    gate.execute(
        call("k"),
        ResultMapper.utf8(),
        ctx -> {
          Thread.sleep(250);
          List<Thread> now = new ArrayList<>(renewerThreads());
          now.removeAll(before);
          renewer.set(now.isEmpty() ? null : now.get(0));
          return "done";
        });
    assertThat(renewer.get()).as("the gate started a renewal thread").isNotNull();
    IdempotencyGate sibling =
        gate.withPolicy(SHORT.toBuilder().lease(Duration.ofSeconds(1)).build());

    gate.close();
    renewer.get().join(5_000);

    assertThat(renewer.get().isAlive()).as("no thread left after close").isFalse();
    failed(gate.execute(call("k2"), ResultMapper.utf8(), ctx -> "ran"), FailureReason.GATE_CLOSED);
    // a gate made by withPolicy shares the renewer, and its closing
    failed(
        sibling.execute(call("k3"), ResultMapper.utf8(), ctx -> "ran"), FailureReason.GATE_CLOSED);
  }

  @Test
  void renewalsAreScheduledOnTheSchedulerTheCallerGivesAndClosingLeavesItRunning()
      throws Exception {
    AtomicInteger scheduledOnMine = new AtomicInteger();
    ScheduledThreadPoolExecutor mine =
        new ScheduledThreadPoolExecutor(1, r -> new Thread(r, "callers-scheduler")) {
          @Override
          protected <V> RunnableScheduledFuture<V> decorateTask(
              Runnable runnable, RunnableScheduledFuture<V> task) {
            scheduledOnMine.incrementAndGet();
            return task;
          }
        };
    RenewalStore store = new RenewalStore(InMemoryIdempotencyStore.create());
    List<String> renewedOn = new CopyOnWriteArrayList<>();
    IdempotencyGate gate =
        IdempotencyGate.builder(store)
            .policy(SHORT)
            .scheduler(mine)
            .listener(
                e -> {
                  if (e.type() == GateEvent.Type.LEASE_RENEWED) {
                    renewedOn.add(Thread.currentThread().getName());
                  }
                })
            .build();
    try {
      gate.execute(
          call("k"),
          ResultMapper.utf8(),
          ctx -> {
            Thread.sleep(350);
            return "done";
          });
      gate.close();

      assertThat(scheduledOnMine.get()).as("the period and each try's deadline").isPositive();
      // the store is asked on a renewal thread, never the scheduler's: a store that hangs cannot
      // hold up the deadline that gives its try up
      assertThat(renewedOn)
          .isNotEmpty()
          .allMatch(name -> name.startsWith("mcpgate-lease-renewal-"));
      assertThat(mine.isShutdown()).isFalse();
    } finally {
      mine.shutdownNow();
    }
  }

  /**
   * The one takeover of a live holder that is left: the whole holder pauses (a stop-the-world
   * pause, a suspended VM) for longer than its lease, renewals included. Another instance takes the
   * key over; when the paused one wakes, it knows its lease may be lost, its completion is fenced
   * (nothing of it is stored), and both attempts sent their external effect with the same
   * downstream key, which the downstream system deduplicates.
   */
  @Test
  void aPausedHolderIsTakenOverAndItsCompletionIsFenced() throws Exception {
    IdempotencyStore store = InMemoryIdempotencyStore.create();
    ScheduledExecutorService paused = Executors.newSingleThreadScheduledExecutor();
    CountDownLatch pause = new CountDownLatch(1);
    IdempotencyGate first = IdempotencyGate.builder(store).policy(SHORT).scheduler(paused).build();
    IdempotencyGate second = IdempotencyGate.builder(store).policy(SHORT).build();
    List<String> sentDownstream = new CopyOnWriteArrayList<>();
    AtomicReference<Boolean> firstKnew = new AtomicReference<>();
    try {
      CountDownLatch running = new CountDownLatch(1);
      AtomicReference<GateResult<String>> firstResult = new AtomicReference<>();
      Thread holder =
          new Thread(
              () ->
                  firstResult.set(
                      first.execute(
                          call("k"),
                          ResultMapper.utf8(),
                          ctx -> {
                            running.countDown();
                            paused.execute(
                                () -> awaitQuietly(pause)); // the renewals stop with the process
                            awaitQuietly(pause); // and so does the action
                            firstKnew.set(ctx.mayHaveLostLease());
                            sentDownstream.add(ctx.downstreamKey());
                            return "refund-by-attempt-" + ctx.attempt();
                          })));
      holder.start();
      assertThat(running.await(5, TimeUnit.SECONDS)).isTrue();
      Thread.sleep(SHORT.lease().toMillis() + 100);

      GateResult<String> takeover =
          second.execute(
              call("k"),
              ResultMapper.utf8(),
              ctx -> {
                sentDownstream.add(ctx.downstreamKey());
                return "refund-by-attempt-" + ctx.attempt();
              });
      pause.countDown();
      holder.join(5_000);

      assertThat(takeover)
          .isInstanceOfSatisfying(
              GateResult.Executed.class,
              e -> assertThat(e.value()).isEqualTo("refund-by-attempt-2"));
      assertThat(firstResult.get())
          .isInstanceOfSatisfying(
              GateResult.Executed.class,
              e -> assertThat(e.completion()).isEqualTo(GateResult.Completion.LEASE_LOST));
      assertThat(firstKnew.get()).as("the paused attempt knew its lease may be lost").isTrue();
      assertThat(sentDownstream).hasSize(2).containsOnly(DownstreamKey.of(call("k").id()));
      assertThat(second.execute(call("k"), ResultMapper.utf8(), ctx -> "again"))
          .isInstanceOfSatisfying(
              GateResult.Replayed.class,
              r -> assertThat(r.value()).isEqualTo("refund-by-attempt-2"));
    } finally {
      pause.countDown();
      paused.shutdownNow();
      first.close();
      second.close();
    }
  }

  private static void awaitQuietly(CountDownLatch latch) {
    try {
      latch.await(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
