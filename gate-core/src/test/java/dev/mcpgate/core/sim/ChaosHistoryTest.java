package dev.mcpgate.core.sim;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.core.GatePolicy;
import dev.mcpgate.core.GateResult;
import dev.mcpgate.core.IdempotencyGate;
import dev.mcpgate.core.memory.InMemoryIdempotencyStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * Generated histories checked against the promise (issue 29, a first part): several gates
 * (replicas) on one in-memory store, each reaching it through a {@link FaultyStore} that refuses,
 * loses replies and stalls by a seed; clients that call and retry with random keys and arguments;
 * actions that take random time and sometimes fail or cannot tell. {@link PromiseChecker} reads the
 * history. The seed decides the faults, the keys, the arguments and the actions' ways; the threads
 * interleave as they will, so a seed that fails once may pass on a rerun: the failure prints the
 * seed and the key's history. Run more with {@code -Dmcpgate.sim.rounds=N}, one seed with {@code
 * -Dmcpgate.sim.seed=S}.
 */
class ChaosHistoryTest {
  private static final Duration LEASE = Duration.ofMillis(1_500);
  private static final int REPLICAS = 3;
  private static final int CLIENTS = 8;
  private static final int KEYS = 10;
  private static final Duration CHAOS = Duration.ofMillis(2_000);

  private static final FaultyStore.Waits REAL_TIME =
      new FaultyStore.Waits() {
        @Override
        public void stall(long nanos) {
          try {
            TimeUnit.NANOSECONDS.sleep(nanos);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
        }

        @Override
        public long now() {
          return System.nanoTime();
        }
      };

  @Test
  void generatedHistoriesKeepThePromise() throws Exception {
    long base = Long.getLong("mcpgate.sim.seed", System.nanoTime());
    int rounds = Integer.getInteger("mcpgate.sim.rounds", 3);
    int answers = 0;
    for (int i = 0; i < rounds; i++) {
      answers += run(base + i);
    }
    assertThat(answers).as("the clients were answered").isGreaterThan(rounds * 50);
  }

  /**
   * @return how many answers the run checked
   */
  private int run(long seed) throws Exception {
    SplittableRandom random = new SplittableRandom(seed);
    History history = new History(System::nanoTime);
    InMemoryIdempotencyStore truth = InMemoryIdempotencyStore.create();
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
          new FaultyStore(truth, random.nextLong(), 5, history, "r" + r, REAL_TIME, 0);
      paths.add(path);
      gates.add(IdempotencyGate.builder(path).policy(policy).build());
    }
    Workload workload = new Workload(gates, paths, history, REAL_TIME, KEYS, 0);
    ExecutorService clients = Executors.newFixedThreadPool(CLIENTS);
    try {
      long until = System.nanoTime() + CHAOS.toNanos();
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
        f.get(60, TimeUnit.SECONDS);
      }
    } finally {
      clients.shutdownNow();
    }
    paths.forEach(p -> p.faulty = false);
    history.note("faults stop");
    Thread.sleep(LEASE.toMillis() + 500); // every lease a lost reply left behind runs out
    Map<String, GateResult<String>> finals = workload.finals();
    gates.forEach(IdempotencyGate::close);

    List<PromiseChecker.Violation> violations =
        PromiseChecker.check(history, truth, Workload::idOf, finals, LEASE.toNanos());
    assertThat(violations)
        .as(
            () ->
                "seed "
                    + seed
                    + " (rerun with -Dmcpgate.sim.seed="
                    + seed
                    + " -Dmcpgate.sim.rounds=1):\n"
                    + violations.stream()
                        .map(v -> v.key() + ": " + v.what() + "\n" + history.about(v.key(), 40))
                        .collect(Collectors.joining("\n\n")))
        .isEmpty();
    return history.answers().size();
  }
}
