package dev.mcpgate.store.tck;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.core.ClaimOutcome;
import dev.mcpgate.core.GatePolicy;
import dev.mcpgate.core.GateResult;
import dev.mcpgate.core.IdempotencyGate;
import dev.mcpgate.core.ResultMapper;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Threads racing through gates on one store: on one free key, onto an expired completed row, onto
 * an expired lease, and over many keys; each action runs once and every caller gets its result.
 *
 * <p>Run as {@link IdempotencyStoreContract.Concurrency}, a nested group of the contract.
 */
abstract class ConcurrencyTests extends ContractGroup {

  /**
   * @param contract the contract instance of the current test
   */
  ConcurrencyTests(IdempotencyStoreContract contract) {
    super(contract);
  }

  @Test
  void threadsRacingOnOneKeyRunTheActionOnceAndAllGetItsResult() throws Exception {
    raceOnOneKey("race", null);
  }

  /**
   * Races threads onto one key (free, or with a row that may be taken), and checks that the action
   * ran exactly once, that every caller got that one new result, and that nobody got a conflict, a
   * refusal or {@code staleValue} (the result of a row that was taken).
   */
  private void raceOnOneKey(String key, String staleValue) throws Exception {
    int threads = threadsOnOneKey();
    IdempotencyGate gate =
        gate(GatePolicy.builder().lease(LONG).inFlightWait(Duration.ofSeconds(60)).build());
    AtomicInteger runs = new AtomicInteger();
    CountDownLatch start = new CountDownLatch(1);
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      List<Future<GateResult<String>>> futures = new ArrayList<>();
      for (int i = 0; i < threads; i++) {
        futures.add(
            pool.submit(
                () -> {
                  start.await();
                  return gate.execute(
                      call(key, Map.of("amount", 500)),
                      ResultMapper.utf8(),
                      ctx -> {
                        int n = runs.incrementAndGet();
                        Thread.sleep(50);
                        return "new-" + n + "-" + UUID.randomUUID();
                      });
                }));
      }
      start.countDown();
      Set<String> values = new HashSet<>();
      for (Future<GateResult<String>> f : futures) {
        GateResult<String> r = f.get(120, TimeUnit.SECONDS);
        if (r instanceof GateResult.Executed<String> e) {
          values.add(e.value());
        } else if (r instanceof GateResult.Replayed<String> rp) {
          values.add(rp.value());
        } else {
          throw new AssertionError("a racing caller with the same arguments got " + r);
        }
      }
      assertThat(runs).hasValue(1);
      assertThat(values).hasSize(1).doesNotContain(staleValue);
      assertThat(values.iterator().next()).startsWith("new-1-");
    } finally {
      pool.shutdownNow();
    }
  }

  /** Five trials: a stale read-back is a race, so one trial may miss it. */
  @Test
  void threadsRacingOntoAnExpiredCompletedRowRunOnceAndNeverReplayTheExpiredResult()
      throws Exception {
    IdempotencyGate shortLived =
        gate(GatePolicy.builder().retention(shortLease()).lease(shortLease()).build());
    for (int trial = 0; trial < 5; trial++) {
      String key = "reuse-" + trial;
      assertThat(
              shortLived.execute(
                  call(key, Map.of("amount", 500)), ResultMapper.utf8(), ctx -> "expired result"))
          .isInstanceOf(GateResult.Executed.class);
      elapse(shortLease());

      raceOnOneKey(key, "expired result");
    }
  }

  @Test
  void threadsRacingOntoAnExpiredLeaseTakeItOverOnce() throws Exception {
    IdempotencyGate abandoning = gate(GatePolicy.builder().lease(shortLease()).build());
    assertThat(abandoning.claim(call("reuse", Map.of("amount", 500))))
        .isInstanceOf(ClaimOutcome.Acquired.class);
    elapse(shortLease());

    raceOnOneKey("reuse", null);
    assertThat(store.find(id("reuse")).orElseThrow().attempt()).isEqualTo(2);
  }

  @Test
  void threadsOverManyKeysRunEachKeysActionOnce() throws Exception {
    int threads = threadsAndKeys()[0];
    int keys = threadsAndKeys()[1];
    IdempotencyGate gate =
        gate(GatePolicy.builder().lease(LONG).inFlightWait(Duration.ofSeconds(60)).build());
    ConcurrentHashMap<String, AtomicInteger> runs = new ConcurrentHashMap<>();
    ConcurrentHashMap<String, Set<String>> results = new ConcurrentHashMap<>();
    CountDownLatch start = new CountDownLatch(1);
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      List<Future<?>> futures = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        int offset = t;
        futures.add(
            pool.submit(
                () -> {
                  start.await();
                  for (int i = 0; i < keys; i++) {
                    String key = "key-" + ((i + offset * 31) % keys);
                    GateResult<String> r =
                        gate.execute(
                            call(key, Map.of("k", key)),
                            ResultMapper.utf8(),
                            ctx ->
                                key
                                    + "#"
                                    + runs.computeIfAbsent(key, k -> new AtomicInteger())
                                        .incrementAndGet());
                    String v =
                        r instanceof GateResult.Executed<String> e
                            ? e.value()
                            : r instanceof GateResult.Replayed<String> rp
                                ? rp.value()
                                : "refused:" + r;
                    results.computeIfAbsent(key, k -> ConcurrentHashMap.newKeySet()).add(v);
                  }
                  return null;
                }));
      }
      start.countDown();
      for (Future<?> f : futures) {
        f.get(300, TimeUnit.SECONDS);
      }
      assertThat(runs).hasSize(keys);
      runs.forEach((key, n) -> assertThat(n.get()).as("executions of %s", key).isEqualTo(1));
      results.forEach(
          (key, vs) -> assertThat(vs).as("results of %s", key).containsExactly(key + "#1"));
    } finally {
      pool.shutdownNow();
    }
  }
}
