package dev.mcpgate.store.tck.chaos;

import dev.mcpgate.core.GatePolicy;
import dev.mcpgate.core.GateResult;
import dev.mcpgate.core.IdempotencyGate;
import dev.mcpgate.core.spi.DaemonThreads;
import dev.mcpgate.core.spi.IdempotencyStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;

/**
 * The engine's promise, checked against a store under faults: for a store author, the same fault
 * vocabulary and checker that drive the engine's deterministic simulation, run in real time on the
 * store under test. Three gates (replicas) share the store, each through a faulty path that, per
 * call and by the seed, answers, refuses before acting, acts and loses its reply, or stalls (5%
 * each while faults are on); eight client threads send and retry intents with the same key on
 * random replicas; actions take up to 15 ms and return, throw, or cannot tell. Then the faults
 * stop, every lease left behind runs out, each key is called once more, and the history is checked:
 * no key's effect twice, no two runs of a key at once, every answer true (what it says ran, ran;
 * what it says did not, did not; a replay is the stored result of the same arguments), no key
 * blocked once the faults stopped.
 *
 * <pre>
 * &#64;Test
 * void keepsThePromiseUnderFaults() {
 *   PromiseUnderFaults.check(store, System.nanoTime());
 * }
 * </pre>
 *
 * <p>Each run writes its own keys (under a tenant of its own, {@code chaos-...}) and leaves them
 * for the store's purge. The seed decides the faults, keys, arguments and actions, not how the
 * threads interleave: a seed that fails once may pass on a rerun; the failure names it.
 */
public final class PromiseUnderFaults {
  private static final Duration LEASE = Duration.ofMillis(1_500);
  private static final int REPLICAS = 3;
  private static final int CLIENTS = 8;
  private static final int KEYS = 10;

  private PromiseUnderFaults() {}

  /** Two seconds of faults; see {@link #check(IdempotencyStore, long, Duration)}. */
  public static int check(IdempotencyStore store, long seed) {
    return check(store, seed, Duration.ofSeconds(2));
  }

  /**
   * Runs one history of {@code chaos} against {@code store} and checks it against the promise.
   *
   * @param store the store under test (not closed)
   * @param seed decides the faults, the keys, the arguments and the actions
   * @param chaos how long the clients send while the faults are on
   * @return how many answers the run checked
   * @throws AssertionError naming the seed and, for each key the promise broke for, what broke and
   *     the key's history
   */
  public static int check(IdempotencyStore store, long seed, Duration chaos) {
    SplittableRandom random = new SplittableRandom(seed);
    String tenant = "chaos-" + Long.toUnsignedString(new SplittableRandom().nextLong(), 36);
    History history = new History(System::nanoTime);
    GatePolicy policy =
        GatePolicy.builder()
            .lease(LEASE)
            .inFlightWait(Duration.ofMillis(150))
            .unknownFence(Duration.ofHours(1))
            .build();
    List<FaultyStore> paths = new ArrayList<>();
    List<IdempotencyGate> gates = new ArrayList<>();
    for (int r = 0; r < REPLICAS; r++) {
      FaultyStore path =
          new FaultyStore(store, random.nextLong(), 5, history, "r" + r, FaultyStore.REAL_TIME, 0);
      paths.add(path);
      gates.add(
          IdempotencyGate.builder(path).policy(policy).listener(history.listener("r" + r)).build());
    }
    Workload workload = new Workload(gates, paths, history, FaultyStore.REAL_TIME, tenant, KEYS, 0);
    Map<String, GateResult<String>> finals;
    try {
      clients(workload, random, chaos);
      paths.forEach(p -> p.faulty = false);
      history.note("faults stop");
      // every lease left behind runs out, after the longest stall (a hung call still renewed)
      FaultyStore.REAL_TIME.stall(LEASE.plus(FaultyStore.LONGEST_STALL).plusMillis(500).toNanos());
      finals = workload.finals();
    } finally {
      gates.forEach(IdempotencyGate::close);
    }
    List<PromiseChecker.Violation> violations =
        PromiseChecker.check(history, store, workload::idOf, finals, LEASE.toNanos(), false);
    if (!violations.isEmpty()) {
      throw new AssertionError(
          "seed "
              + seed
              + " broke the promise on "
              + tenant
              + ":\n"
              + violations.stream()
                  .map(v -> v.key() + ": " + v.what() + "\n" + history.about(v.key(), 40))
                  .collect(Collectors.joining("\n\n")));
    }
    return history.answers().size();
  }

  private static void clients(Workload workload, SplittableRandom random, Duration chaos) {
    ExecutorService clients =
        Executors.newFixedThreadPool(CLIENTS, DaemonThreads.named("mcpgate-chaos-client"));
    try {
      long until = System.nanoTime() + chaos.toNanos();
      List<Future<?>> running = new ArrayList<>();
      for (int c = 0; c < CLIENTS; c++) {
        SplittableRandom mine = random.split();
        running.add(
            clients.submit(
                () -> {
                  while (System.nanoTime() < until) {
                    workload.intent(mine);
                  }
                  return null;
                }));
      }
      for (Future<?> f : running) {
        f.get(chaos.toSeconds() + 60, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted while the clients ran", e);
    } catch (ExecutionException | TimeoutException e) {
      throw new AssertionError("a client did not finish: " + e, e);
    } finally {
      clients.shutdownNow();
    }
  }
}
