package dev.mcpgate.store.tck.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.core.memory.InMemoryIdempotencyStore;
import org.junit.jupiter.api.Test;

/**
 * {@link PromiseUnderFaults} on the in-memory store, in real time and on real threads: what the
 * JVM's own scheduling and real timing add to the deterministic {@link SimulationTest}. Run more
 * with {@code -Dmcpgate.sim.rounds=N}, from one seed with {@code -Dmcpgate.sim.seed=S}.
 */
class ChaosHistoryTest {
  @Test
  void generatedHistoriesKeepThePromise() {
    long base = Long.getLong("mcpgate.sim.seed", System.nanoTime());
    int rounds = Integer.getInteger("mcpgate.sim.rounds", 3);
    int answers = 0;
    for (int i = 0; i < rounds; i++) {
      answers += PromiseUnderFaults.check(InMemoryIdempotencyStore.create(), base + i);
    }
    assertThat(answers).as("the clients were answered").isGreaterThan(rounds * 50);
  }
}
