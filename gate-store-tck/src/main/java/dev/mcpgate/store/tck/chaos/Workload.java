package dev.mcpgate.store.tck.chaos;

import dev.mcpgate.core.ClaimId;
import dev.mcpgate.core.ClaimOutcome;
import dev.mcpgate.core.FailureReason;
import dev.mcpgate.core.GateResult;
import dev.mcpgate.core.IdempotencyException;
import dev.mcpgate.core.IdempotencyGate;
import dev.mcpgate.core.OutcomeUnknownException;
import dev.mcpgate.core.RefusalReason;
import dev.mcpgate.core.ResultMapper;
import dev.mcpgate.core.ToolCall;
import dev.mcpgate.core.spi.StoredResult;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * What the clients of a simulated run do, the same in real and in virtual time: intents (a key and
 * its arguments) sent and retried with the same key on random replicas until they settle, and
 * actions that take a while and, by the seed, return, throw, or cannot tell. With {@link #steps},
 * half the attempts go through the step-by-step API instead of {@code execute}: a claim, the action
 * at once, and a complete, release or mark-unknown, as a careful caller writes it (no heartbeat:
 * its actions are short). Everything they see goes to the {@link History}.
 */
final class Workload {
  private final List<IdempotencyGate> gates;
  private final List<FaultyStore> paths;
  private final History history;
  private final FaultyStore.Waits waits;
  private final String tenant;
  private final int keys;
  private final long longWorkNanos;
  private final AtomicInteger calls = new AtomicInteger();
  private long stepHoldsNanos; // 0: every attempt through execute

  /** The downstream system: by downstream key, the value of the last effect that happened. */
  private final Map<String, String> downstream = new ConcurrentHashMap<>();

  Workload(
      List<IdempotencyGate> gates,
      List<FaultyStore> paths,
      History history,
      FaultyStore.Waits waits,
      String tenant,
      int keys,
      long longWorkNanos) {
    this.tenant = tenant;
    this.longWorkNanos = longWorkNanos;
    this.gates = gates;
    this.paths = paths;
    this.history = history;
    this.waits = waits;
    this.keys = keys;
  }

  /**
   * @return the value of the last effect that happened under this downstream key, as the downstream
   *     system would tell a reconciler; null when none did
   */
  String effectUnder(String downstreamKey) {
    return downstream.get(downstreamKey);
  }

  /**
   * Sends half the attempts through the step-by-step API from now on.
   *
   * @param holdsNanos how long a claim that {@link IdempotencyGate#claim} returned acquired holds
   *     its key at least, from its return
   * @return this workload
   */
  Workload steps(long holdsNanos) {
    this.stepHoldsNanos = holdsNanos;
    return this;
  }

  ClaimId idOf(String key) {
    return new ClaimId(tenant, "refund_order", key);
  }

  private ToolCall call(String key, String variant) {
    return ToolCall.of(tenant, "refund_order", key, Map.of("amount", variant.equals("A") ? 5 : 7));
  }

  /** One intent: a key and its arguments, sent and retried with the same key until it settles. */
  void intent(SplittableRandom random) {
    String key = "k" + random.nextInt(keys);
    String variant = random.nextInt(10) == 0 ? "B" : "A";
    for (int attempt = 0; attempt < 5; attempt++) {
      int id = calls.incrementAndGet();
      long actionSeed = random.nextLong();
      int replica = random.nextInt(gates.size());
      GateResult<String> result =
          stepHoldsNanos > 0 && random.nextBoolean()
              ? stepByStep(replica, key, variant, id, actionSeed)
              : gates
                  .get(replica)
                  .execute(
                      call(key, variant),
                      ResultMapper.utf8(),
                      ctx ->
                          action(
                              new SplittableRandom(actionSeed),
                              id,
                              key,
                              ctx.attempt(),
                              ctx.downstreamKey(),
                              variant,
                              paths.get(replica),
                              true));
      history.answered(new History.Answer(id, key, variant, result, history.now()));
      boolean settled =
          result.fold(
              e -> true,
              p -> true,
              r ->
                  r.reason() != RefusalReason.IN_PROGRESS
                      && r.reason() != RefusalReason.HOLDER_UNRESPONSIVE,
              f -> !f.retrySafe());
      if (settled) {
        return;
      }
      waits.stall(TimeUnit.MILLISECONDS.toNanos(10 + random.nextInt(30)));
    }
  }

  /** Once the faults have stopped and every lease left behind ran out: each key, once more. */
  Map<String, GateResult<String>> finals() {
    Map<String, GateResult<String>> finals = new LinkedHashMap<>();
    for (int k = 0; k < keys; k++) {
      String key = "k" + k;
      int id = calls.incrementAndGet();
      GateResult<String> last =
          gates
              .get(0)
              .execute(
                  call(key, "A"),
                  ResultMapper.utf8(),
                  ctx ->
                      action(
                          null,
                          id,
                          key,
                          ctx.attempt(),
                          ctx.downstreamKey(),
                          "A",
                          paths.get(0),
                          true));
      history.answered(new History.Answer(id, key, "A", last, history.now()));
      finals.put(key, last);
    }
    return finals;
  }

  /**
   * One attempt through the step-by-step API, told as {@code execute} would tell it: a claim; if
   * acquired, the action at once (never one that outlasts a lease: nobody renews it), then a
   * complete (it returned), a mark-unknown (it could not tell) or a release (it threw). The claim's
   * return, how long it holds the key, and the settling write's answer go to the {@link History}.
   */
  private GateResult<String> stepByStep(
      int replica, String key, String variant, int id, long actionSeed) {
    IdempotencyGate gate = gates.get(replica);
    ToolCall call = call(key, variant);
    ClaimOutcome outcome;
    try {
      outcome = gate.claim(call);
    } catch (IdempotencyException e) { // the store failed, or a late claim lost three times
      return new GateResult.Failed<>(
          call.id(),
          FailureReason.STORE_UNAVAILABLE,
          GateResult.Effect.NO,
          true,
          e.getMessage(),
          e,
          0,
          null,
          null,
          null);
    }
    return outcome.fold(
        acquired -> settle(gate, acquired, replica, key, variant, id, actionSeed),
        replayed ->
            new GateResult.Replayed<>(
                replayed.id(),
                new String(replayed.result().body(), StandardCharsets.UTF_8),
                replayed.result().kind() == StoredResult.Kind.FAILURE,
                replayed.attempt(),
                replayed.firstExecutedAt(),
                replayed.completedAt(),
                replayed.settled(),
                null,
                null,
                null),
        refused -> GateResult.Refused.of(refused, null, null, Duration.ZERO));
  }

  private GateResult<String> settle(
      IdempotencyGate gate,
      ClaimOutcome.Acquired acquired,
      int replica,
      String key,
      String variant,
      int id,
      long actionSeed) {
    long returned = history.now();
    String value = null;
    Exception thrown = null;
    try {
      value =
          action(
              new SplittableRandom(actionSeed),
              id,
              key,
              acquired.attempt(),
              acquired.downstreamKey(),
              variant,
              paths.get(replica),
              false);
    } catch (Exception e) {
      thrown = e;
    }
    boolean unknown = thrown instanceof OutcomeUnknownException;
    String write = thrown == null ? "complete" : unknown ? "markUnknown" : "release";
    Boolean answer = null;
    try {
      answer =
          thrown == null
              ? gate.complete(acquired, value.getBytes(StandardCharsets.UTF_8), false)
              : unknown ? gate.markUnknown(acquired) : gate.release(acquired);
    } catch (IdempotencyException e) {
      history.note("call " + id + ": " + write + " failed: " + e.getMessage());
    }
    history.stepped(
        new History.Step(
            id, key, returned, returned + stepHoldsNanos, write, answer, history.now()));
    if (thrown == null) {
      GateResult.Completion completion =
          answer == null
              ? GateResult.Completion.STORE_FAILED
              : answer ? GateResult.Completion.STORED : GateResult.Completion.LEASE_LOST;
      return new GateResult.Executed<>(acquired.id(), value, acquired, completion);
    }
    return new GateResult.Failed<>(
        acquired.id(),
        unknown ? FailureReason.OUTCOME_UNKNOWN : FailureReason.ACTION_FAILED,
        unknown ? GateResult.Effect.UNKNOWN : GateResult.Effect.NO,
        !unknown,
        thrown.getMessage(),
        thrown,
        acquired.attempt(),
        null,
        null,
        null);
  }

  /**
   * The effect: it takes a while (now and then, longer than a lease: renewals keep it) (and stops
   * while its replica is paused), and by the seed returns, fails plainly, or cannot tell (its
   * effect happened or not, by the seed) ({@code random} null: returns at once). An effect that
   * happened is told to the downstream system before the gate hears of it.
   */
  private String action(
      SplittableRandom random,
      int call,
      String key,
      int attempt,
      String downstreamKey,
      String variant,
      FaultyStore path,
      boolean mayOutlast)
      throws Exception {
    long start = history.now();
    String value = "v-" + variant + "-" + call;
    History.Ending ending = History.Ending.RETURNED;
    boolean effect = true;
    try {
      if (random == null) {
        return value;
      }
      path.waitOutPause();
      // one in 25 outlasts a lease
      boolean outlasts = mayOutlast && longWorkNanos > 0 && random.nextInt(25) == 0;
      waits.stall(
          outlasts
              ? longWorkNanos / 3 + random.nextLong(longWorkNanos)
              : TimeUnit.MILLISECONDS.toNanos(random.nextInt(15)));
      path.waitOutPause();
      int draw = random.nextInt(100);
      if (draw < 6) {
        ending = History.Ending.THREW;
        effect = false;
        throw new IllegalStateException("declined (sim)");
      }
      if (draw < 9) {
        ending = History.Ending.UNKNOWN;
        effect = random.nextBoolean(); // the action's last draw: no other draw moves
        throw new OutcomeUnknownException("the provider timed out (sim)");
      }
      return value;
    } finally {
      if (effect) {
        downstream.put(downstreamKey, value);
      }
      history.ran(
          new History.Run(
              call,
              key,
              attempt,
              start,
              history.now(),
              value,
              ending,
              effect,
              path.replica(),
              downstreamKey));
    }
  }
}
