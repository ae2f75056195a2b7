package dev.mcpgate.store.tck.chaos;

import dev.mcpgate.core.ClaimContext;
import dev.mcpgate.core.ClaimId;
import dev.mcpgate.core.GateResult;
import dev.mcpgate.core.IdempotencyGate;
import dev.mcpgate.core.OutcomeUnknownException;
import dev.mcpgate.core.RefusalReason;
import dev.mcpgate.core.ResultMapper;
import dev.mcpgate.core.ToolCall;
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
 * actions that take a while and, by the seed, return, throw, or cannot tell. Everything they see
 * goes to the {@link History}.
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
          gates
              .get(replica)
              .execute(
                  call(key, variant),
                  ResultMapper.utf8(),
                  ctx ->
                      action(
                          new SplittableRandom(actionSeed),
                          id,
                          key,
                          ctx,
                          variant,
                          paths.get(replica)));
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
                  ctx -> action(null, id, key, ctx, "A", paths.get(0)));
      history.answered(new History.Answer(id, key, "A", last, history.now()));
      finals.put(key, last);
    }
    return finals;
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
      ClaimContext ctx,
      String variant,
      FaultyStore path)
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
      boolean outlasts = longWorkNanos > 0 && random.nextInt(25) == 0; // one in 25 outlasts a lease
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
        downstream.put(ctx.downstreamKey(), value);
      }
      history.ran(
          new History.Run(
              call,
              key,
              ctx.attempt(),
              start,
              history.now(),
              value,
              ending,
              effect,
              path.replica(),
              ctx.downstreamKey()));
    }
  }
}
