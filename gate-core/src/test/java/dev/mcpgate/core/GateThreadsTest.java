package dev.mcpgate.core;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.core.memory.InMemoryIdempotencyStore;
import dev.mcpgate.core.purge.ClaimPurger;
import dev.mcpgate.core.spi.DaemonThreads;
import dev.mcpgate.core.spi.ForwardingIdempotencyStore;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * Every thread the gate and its purger use can be the caller's: given a scheduler and an executor,
 * the gate renews leases and writes late fences on them and starts no thread of its own; closing
 * the gate stops its work there, not the caller's executors.
 */
class GateThreadsTest {
  private static final ResultMapper<String> MAPPER = ResultMapper.utf8();

  /** A lease of {@code ms}, renewed every 100 ms. */
  private static GatePolicy leases(long ms) {
    return GatePolicy.builder()
        .lease(Duration.ofMillis(ms))
        .leaseRenewal(Duration.ofMillis(100))
        .build();
  }

  /** The live threads named as MCP Gate names its own, by identity (names repeat per factory). */
  private static Set<Thread> gateThreads() {
    return Thread.getAllStackTraces().keySet().stream()
        .filter(Thread::isAlive)
        .filter(t -> t.getName().startsWith("mcpgate-"))
        .collect(Collectors.toSet());
  }

  @Test
  void aGateGivenASchedulerAndAnExecutorRenewsAndFencesOnThemAndStartsNoThreadOfItsOwn()
      throws Exception {
    ScheduledExecutorService scheduler =
        Executors.newSingleThreadScheduledExecutor(DaemonThreads.named("users-scheduler"));
    ExecutorService pool = Executors.newCachedThreadPool(DaemonThreads.named("users-pool"));
    AtomicInteger ranOnPool = new AtomicInteger();
    FaultyFenceStore store = new FaultyFenceStore(InMemoryIdempotencyStore.create());
    Set<Thread> before = gateThreads();
    try (IdempotencyGate gate =
        IdempotencyGate.builder(store)
            .policy(leases(400))
            .scheduler(scheduler)
            .executor(
                task ->
                    pool.execute(
                        () -> {
                          ranOnPool.incrementAndGet();
                          task.run();
                        }))
            .build()) {
      GateResult<String> renewed =
          gate.execute(
              ToolCall.of("acme", "refund_order", "k1", Map.of("order_id", "ord_1")),
              MAPPER,
              ctx -> {
                Thread.sleep(1_000); // two and a half leases: renewed, or lapsed
                return ctx.mayHaveLostLease() ? "lapsed" : "held";
              });
      assertThat(renewed)
          .isInstanceOfSatisfying(
              GateResult.Executed.class, e -> assertThat(e.value()).isEqualTo("held"));
      int renewals = ranOnPool.get();
      assertThat(renewals).as("the renewal tries ran on the caller's executor").isGreaterThan(3);

      store.refusing.set(true); // the result and the fence refused: the fence is written late
      gate.execute(
          ToolCall.of("acme", "refund_order", "k2", Map.of("order_id", "ord_2")),
          MAPPER,
          ctx -> "refund");
      store.refusing.set(false);
      long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
      while (store.fenceTries.get() < 2 && System.nanoTime() < until) {
        Thread.sleep(20);
      }
      assertThat(store.fenceTries.get()).as("the fence was tried again").isGreaterThan(1);
      assertThat(gateThreads())
          .as("no thread of the gate's own, only the caller's")
          .isSubsetOf(before);
    }
    assertThat(scheduler.isShutdown()).as("the caller's scheduler is the caller's").isFalse();
    assertThat(pool.isShutdown()).as("the caller's executor is the caller's").isFalse();
    scheduler.shutdownNow();
    pool.shutdownNow();
  }

  @Test
  void anExecutorThatCannotMakeAThreadForATryLeavesTheNextPeriodsTriesToRenew() throws Exception {
    ExecutorService pool = Executors.newCachedThreadPool(DaemonThreads.named("users-pool"));
    AtomicInteger refusals = new AtomicInteger(2);
    try (IdempotencyGate gate =
        IdempotencyGate.builder(InMemoryIdempotencyStore.create())
            .policy(leases(600))
            .executor(
                task -> {
                  if (refusals.getAndDecrement() > 0) {
                    throw new OutOfMemoryError("unable to create native thread (test)");
                  }
                  pool.execute(task);
                })
            .build()) {
      GateResult<String> result =
          gate.execute(
              ToolCall.of("acme", "refund_order", "oom", Map.of("order_id", "ord_3")),
              MAPPER,
              ctx -> {
                Thread.sleep(1_500); // two and a half leases
                return ctx.mayHaveLostLease() ? "lapsed" : "held";
              });
      assertThat(result)
          .as("the tries after the two that could not be sent renew the lease")
          .isInstanceOfSatisfying(
              GateResult.Executed.class, e -> assertThat(e.value()).isEqualTo("held"));
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void aLateFenceWhoseTryCouldNotGetAThreadIsTriedAgainAndWritten() throws Exception {
    ExecutorService pool = Executors.newCachedThreadPool(DaemonThreads.named("users-pool"));
    java.util.concurrent.atomic.AtomicBoolean noThreads =
        new java.util.concurrent.atomic.AtomicBoolean();
    InMemoryIdempotencyStore memory = InMemoryIdempotencyStore.create();
    FaultyFenceStore store = new FaultyFenceStore(memory);
    ToolCall call = ToolCall.of("acme", "refund_order", "late", Map.of("order_id", "ord_4"));
    try (IdempotencyGate gate =
        IdempotencyGate.builder(store)
            .policy(leases(400))
            .executor(
                task -> {
                  if (noThreads.get() && Thread.currentThread().getName().startsWith("mcpgate-")) {
                    throw new OutOfMemoryError("unable to create native thread (test)");
                  }
                  pool.execute(task);
                })
            .build()) {
      store.refusing.set(true); // the result and the fence refused: the fence is kept
      gate.execute(call, MAPPER, ctx -> "refund");
      noThreads.set(true); // the next tries cannot get a thread
      Thread.sleep(300);
      store.refusing.set(false);
      noThreads.set(false);
      long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
      while (memory
              .find(call.id())
              .map(r -> r.state())
              .filter(st -> st == dev.mcpgate.core.spi.ClaimState.UNKNOWN)
              .isEmpty()
          && System.nanoTime() < until) {
        Thread.sleep(20);
      }
      assertThat(memory.find(call.id()))
          .as("the fence is written once threads can be had again")
          .hasValueSatisfying(
              r -> assertThat(r.state()).isEqualTo(dev.mcpgate.core.spi.ClaimState.UNKNOWN));
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void aPurgerGivenASchedulerPurgesThereAndItsCloseLeavesTheSchedulerRunning() throws Exception {
    ScheduledExecutorService scheduler =
        Executors.newSingleThreadScheduledExecutor(DaemonThreads.named("users-purge"));
    AtomicInteger rounds = new AtomicInteger();
    InMemoryIdempotencyStore memory = InMemoryIdempotencyStore.create();
    ForwardingIdempotencyStore counting =
        new ForwardingIdempotencyStore(memory) {
          @Override
          public int purgeExpired(int limit) {
            assertThat(Thread.currentThread().getName()).startsWith("users-purge-");
            rounds.incrementAndGet();
            return super.purgeExpired(limit);
          }
        };
    Set<Thread> before = gateThreads();
    ClaimPurger purger = ClaimPurger.start(counting, Duration.ofMillis(20), 10, scheduler);
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    while (rounds.get() < 3 && System.nanoTime() < until) {
      Thread.sleep(10);
    }
    assertThat(rounds.get()).isGreaterThanOrEqualTo(3);
    assertThat(gateThreads()).as("no purge thread of its own").isSubsetOf(before);
    purger.close();
    int after = rounds.get();
    Thread.sleep(100);
    assertThat(rounds.get()).as("no round after close").isLessThanOrEqualTo(after + 1);
    assertThat(scheduler.isShutdown()).isFalse();
    scheduler.shutdownNow();
  }

  @Test
  void daemonThreadsAreNamedAndCountedPerFactory() {
    DaemonThreads a = DaemonThreads.named("x");
    DaemonThreads b = DaemonThreads.named("x");
    Thread first = a.newThread(() -> {});
    assertThat(first.getName()).isEqualTo("x-1");
    assertThat(first.isDaemon()).isTrue();
    assertThat(a.newThread(() -> {}).getName()).isEqualTo("x-2");
    assertThat(b.newThread(() -> {}).getName()).as("no count shared by the JVM").isEqualTo("x-1");
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> DaemonThreads.named(" "))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("blank");
  }
}
