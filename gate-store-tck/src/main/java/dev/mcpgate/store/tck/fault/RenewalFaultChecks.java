package dev.mcpgate.store.tck.fault;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.core.GateAction;
import dev.mcpgate.core.GateResult;
import dev.mcpgate.core.IdempotencyGate;
import dev.mcpgate.core.ResultMapper;
import dev.mcpgate.core.ToolCall;
import dev.mcpgate.core.spi.ClaimState;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

/**
 * The store-neutral half of a renewal fault suite: what replica B does while replica A runs a live
 * action through a fault of A's renewal path, and the checks of what A and B were told against the
 * row's state. A store's suite builds the two stores and gates, makes the faults (with a {@link
 * FaultProxy}) and finds its renewal connection; this class runs B's retries, judges the answers,
 * runs the cases at once and prints one line per case.
 *
 * <pre>
 * Map&lt;String, Callable&lt;Outcome&gt;&gt; cases = new LinkedHashMap&lt;&gt;();
 * for (Fault f : Fault.values()) {
 *   cases.put(f.name(), () -&gt; run(f)); // run: A's liveAction, the fault, then:
 * }
 * // in run: RenewalFaultChecks.retryWhileRunning(gateB, call, effects, a, until, bAnswers);
 * //         RenewalFaultChecks.checkAnswers(effects.get(), bAnswers, aTold, row, bFinal, ...);
 * RenewalFaultChecks.runAll("renewal fault suite on my store", cases, cases.size(), deadline);
 * </pre>
 */
public final class RenewalFaultChecks {
  /** What A's action returns: B is given it once A stored it. */
  public static final String A_RESULT = "by-A";

  private RenewalFaultChecks() {}

  /**
   * What a case found, printed as one line.
   *
   * @param kase the case's name
   * @param effects how many times the action of the key A and B share ran (-1 when unknown)
   * @param counts store-specific counts for the line, such as {@code "failed tries=2"}, or empty
   * @param aTold what A was told, as {@link #told(GateResult)} puts it
   * @param bTold what B was told, as {@link #summary(List)} puts it
   * @param wrong what the case found wrong; empty when the case is ok
   */
  public record Outcome(
      String kase, int effects, String counts, String aTold, String bTold, List<String> wrong) {
    /**
     * A case that found nothing: it failed or did not end in time.
     *
     * @param kase the case's name
     * @param why why it found nothing
     * @return an outcome with that one thing wrong
     */
    public static Outcome failed(String kase, String why) {
      return new Outcome(kase, -1, "", "-", "-", List.of(why));
    }

    /**
     * @return the case's line: its name, the counts, what A and B were told, and "ok" or what was
     *     wrong
     */
    public String line() {
      return String.format(
          "%-36s effects=%d  %sA: %-22s B: %-40s %s",
          kase,
          effects,
          counts.isEmpty() ? "" : counts + "  ",
          aTold,
          bTold,
          wrong.isEmpty() ? "ok" : "WRONG: " + String.join("; ", wrong));
    }
  }

  /**
   * @param r a gate's answer
   * @return the answer in a few words: {@code "executed STORED"}, {@code "replayed by-A"}, {@code
   *     "refused IN_PROGRESS"}, {@code "failed STORE_UNAVAILABLE"}
   */
  public static String told(GateResult<?> r) {
    return r.fold(
        executed -> "executed " + executed.completion(),
        replayed -> "replayed " + replayed.value(),
        refused -> "refused " + refused.reason(),
        failed -> "failed " + failed.reason());
  }

  /**
   * @param answers answers as {@link #told(GateResult)} puts them
   * @return the distinct answers in order, each with its count: {@code "12x refused IN_PROGRESS, 1x
   *     replayed by-A"}
   */
  public static String summary(List<String> answers) {
    Map<String, Integer> counts = new LinkedHashMap<>();
    answers.forEach(s -> counts.merge(s, 1, Integer::sum));
    List<String> parts = new ArrayList<>();
    counts.forEach((s, n) -> parts.add(n + "x " + s));
    return String.join(", ", parts);
  }

  /**
   * A live action: counts its run, says it started, sleeps {@code length} (longer than a lease, so
   * that a lost lease would be taken over) and returns {@code result}.
   *
   * @param runs the count of the action's runs
   * @param started counted down when the action starts
   * @param length how long the action runs
   * @param result what the action returns
   * @return the action
   */
  public static GateAction<String> liveAction(
      AtomicInteger runs, CountDownLatch started, Duration length, String result) {
    return ctx -> {
      runs.incrementAndGet();
      started.countDown();
      Thread.sleep(length.toMillis());
      return result;
    };
  }

  /**
   * B's retries while A runs: B asks for {@code call} every 200 ms until A's attempt ends or {@code
   * atMost} passed; an action B runs counts in {@code effects} (it must never run).
   *
   * @param gateB B's gate
   * @param call the call A is running
   * @param effects the count of the action's runs, A's and B's
   * @param a A's attempt
   * @param atMost how long B retries at most
   * @param answers where B's answers go, as {@link #told(GateResult)} puts them
   * @throws InterruptedException if interrupted between two retries
   */
  public static void retryWhileRunning(
      IdempotencyGate gateB,
      ToolCall call,
      AtomicInteger effects,
      Future<?> a,
      Duration atMost,
      List<String> answers)
      throws InterruptedException {
    long deadline = System.nanoTime() + atMost.toNanos();
    while (!a.isDone() && System.nanoTime() < deadline) {
      answers.add(
          told(
              gateB.execute(
                  call,
                  ResultMapper.utf8(),
                  ctx -> {
                    effects.incrementAndGet();
                    return "by-B";
                  })));
      Thread.sleep(200);
    }
  }

  /**
   * B's last try, after A's attempt ended; its action, which must not run, returns {@code "by-B
   * after A ended"}.
   *
   * @param gateB B's gate
   * @param call the call A ran
   * @return B's answer, as {@link #told(GateResult)} puts it
   */
  public static String lastTry(IdempotencyGate gateB, ToolCall call) {
    return told(gateB.execute(call, ResultMapper.utf8(), ctx -> "by-B after A ended"));
  }

  /**
   * What an attempt of A may be told, and the row that goes with it: its result stored (the row
   * completed), or, after a fail-over only, its result not stored (the row fenced as unknown).
   *
   * @param who the attempt, in what is wrong ("A", a key)
   * @param told what it was told, as {@link #told(GateResult)} puts it
   * @param state the state of its row, read by B's store; null when there is no row
   * @param failover whether the case's fault was a fail-over, the one fault that may fail a
   *     completion
   * @param wrong where what is wrong goes
   */
  public static void checkTold(
      String who, String told, ClaimState state, boolean failover, List<String> wrong) {
    if (told.equals("executed STORED")) {
      if (state != ClaimState.COMPLETED) {
        wrong.add(who + " was told its result is stored, but the row is " + state);
      }
    } else if (told.equals("executed STORE_FAILED") && failover) {
      if (state != ClaimState.UNKNOWN) {
        wrong.add(who + " was told its result is not stored, but the row is " + state);
      }
    } else {
      wrong.add(who + " was told " + told);
    }
  }

  /**
   * The checks of a case's shared key: the action ran once, B never ran it, A's answer is true of
   * the row ({@link #checkTold}), and B was finally given A's result ({@value #A_RESULT}), or told
   * {@code refused OUTCOME_UNKNOWN} when A's result was not stored.
   *
   * @param effects how many times the action ran, A's and B's
   * @param bAnswers all of B's answers, its last try's included
   * @param aTold what A was told
   * @param state the state of the key's row, read by B's store; null when there is no row
   * @param bFinal what B's last try, after A ended, was told
   * @param failover whether the case's fault was a fail-over
   * @param wrong where what is wrong goes
   */
  public static void checkAnswers(
      int effects,
      List<String> bAnswers,
      String aTold,
      ClaimState state,
      String bFinal,
      boolean failover,
      List<String> wrong) {
    if (effects != 1) {
      wrong.add("the action ran " + effects + " times");
    }
    if (bAnswers.stream().anyMatch(s -> s.startsWith("executed"))) {
      wrong.add("B ran the action");
    }
    checkTold("A", aTold, state, failover, wrong);
    if (aTold.equals("executed STORED") && !bFinal.equals("replayed " + A_RESULT)) {
      wrong.add("B was finally told " + bFinal + ", not A's result");
    } else if (aTold.equals("executed STORE_FAILED") && !bFinal.equals("refused OUTCOME_UNKNOWN")) {
      wrong.add("B was finally told " + bFinal + " for a key fenced as unknown");
    }
  }

  /**
   * The checks of the other actions a case ran alongside A's, each with its own key: each ran once,
   * and each answer is true of its row ({@link #checkTold}).
   *
   * @param others each other action's key and attempt, in order
   * @param runs each other action's count of runs, by key; a missing count is no run
   * @param stateOf the state of a key's row, read by B's store; null when there is no row
   * @param failover whether the case's fault was a fail-over
   * @param wrong where what is wrong goes
   * @return how many of the other attempts were told what, as {@link #told(GateResult)} puts it
   * @throws Exception if an attempt failed or did not end within 60 seconds
   */
  public static Map<String, Integer> checkOthers(
      Map<String, Future<GateResult<String>>> others,
      Map<String, AtomicInteger> runs,
      Function<String, ClaimState> stateOf,
      boolean failover,
      List<String> wrong)
      throws Exception {
    Map<String, Integer> tally = new HashMap<>();
    for (Map.Entry<String, Future<GateResult<String>>> o : others.entrySet()) {
      String key = o.getKey();
      int ran = runs.getOrDefault(key, new AtomicInteger()).get();
      if (ran != 1) {
        wrong.add("the action of " + key + " ran " + ran + " times");
      }
      String told = told(o.getValue().get(60, TimeUnit.SECONDS));
      tally.merge(told, 1, Integer::sum);
      checkTold(key, told, stateOf.apply(key), failover, wrong);
    }
    return tally;
  }

  /**
   * Runs the cases, {@code parallel} at a time, prints one line per case to standard error under
   * {@code title}, and fails unless every case is ok. A case that throws, or has not ended by the
   * deadline, is wrong.
   *
   * @param title the table's title, such as {@code "renewal fault suite on Redis ..."}
   * @param cases each case's name and run, in the order of the lines
   * @param parallel how many cases run at once
   * @param deadline how long all the cases may take
   * @return the outcomes, in the order of the cases
   * @throws InterruptedException if interrupted while waiting for a case
   */
  public static List<Outcome> runAll(
      String title, Map<String, Callable<Outcome>> cases, int parallel, Duration deadline)
      throws InterruptedException {
    List<String> names = new ArrayList<>(cases.keySet());
    ExecutorService runner = Executors.newFixedThreadPool(parallel);
    List<Outcome> outcomes = new ArrayList<>();
    // how late a thread that only sleeps wakes: a machine that stalls for seconds breaks any lease
    AtomicLong overslept = new AtomicLong();
    Thread watch =
        new Thread(
            () -> {
              while (!Thread.currentThread().isInterrupted()) {
                long before = System.nanoTime();
                try {
                  Thread.sleep(50);
                } catch (InterruptedException e) {
                  return;
                }
                long late = (System.nanoTime() - before) / 1_000_000 - 50;
                overslept.accumulateAndGet(late, Math::max);
              }
            },
            "renewal-fault-stall-watch");
    watch.setDaemon(true);
    watch.start();
    try {
      List<Future<Outcome>> running = new ArrayList<>();
      for (Callable<Outcome> c : cases.values()) {
        running.add(runner.submit(c));
      }
      long end = System.nanoTime() + deadline.toNanos();
      for (int i = 0; i < running.size(); i++) {
        try {
          outcomes.add(
              running.get(i).get(Math.max(0, end - System.nanoTime()), TimeUnit.NANOSECONDS));
        } catch (ExecutionException e) {
          outcomes.add(Outcome.failed(names.get(i), "the case failed: " + e.getCause()));
        } catch (TimeoutException e) {
          running.get(i).cancel(true);
          outcomes.add(Outcome.failed(names.get(i), "the case did not end in time"));
        }
      }
    } finally {
      runner.shutdownNow();
      watch.interrupt();
    }
    StringBuilder report =
        new StringBuilder(
            title
                + " (the most a 50 ms sleep of this JVM overslept meanwhile: "
                + overslept.get()
                + " ms):\n");
    outcomes.forEach(o -> report.append("  ").append(o.line()).append('\n'));
    System.err.print(report);
    assertThat(outcomes).allSatisfy(o -> assertThat(o.wrong()).as(o.line()).isEmpty());
    return outcomes;
  }
}
