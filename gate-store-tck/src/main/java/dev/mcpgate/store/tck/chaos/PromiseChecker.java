package dev.mcpgate.store.tck.chaos;

import dev.mcpgate.core.ClaimId;
import dev.mcpgate.core.FailureReason;
import dev.mcpgate.core.GateResult;
import dev.mcpgate.core.RefusalReason;
import dev.mcpgate.core.spi.ClaimRecord;
import dev.mcpgate.core.spi.ClaimState;
import dev.mcpgate.core.spi.IdempotencyStore;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * The promise, checked over one run's history and the store it ended with, without reading the
 * engine: an effect at most once per key; no two runs of a key at once; every answer true (what it
 * says ran, ran in that call; what it says did not, did not; a replay is a stored result of the
 * same arguments); and, once faults stop, no key blocked.
 *
 * <p>Where the gates had a reconciler, it asked the downstream system, so an action that could not
 * tell counts as its effect truly went ({@link History.Run#effect()}): one whose effect did not
 * happen may run again, and one whose effect did may be the stored result; and no key may stay
 * fenced as unknown once the faults stop. Without one, such an action counts as an effect that may
 * have happened, whatever happened.
 */
final class PromiseChecker {
  private PromiseChecker() {}

  /** A violation of the promise, with the key it concerns. */
  record Violation(String key, String what) {}

  static String told(GateResult<String> r) {
    return r.fold(
        e -> "executed " + e.completion() + " " + e.value(),
        p -> "replayed " + p.value(),
        f -> "refused " + f.reason(),
        f -> "failed " + f.reason() + " (effect " + f.effect() + ")");
  }

  static List<Violation> check(
      History history,
      IdempotencyStore truth,
      Function<String, ClaimId> idOf,
      Map<String, GateResult<String>> finals,
      long cutOffNanos,
      boolean reconciled) {
    List<Violation> found = new ArrayList<>();
    Map<String, List<History.Run>> runsByKey =
        history.runs().stream()
            .collect(Collectors.groupingBy(History.Run::key, TreeMap::new, Collectors.toList()));
    Map<Integer, List<History.Run>> runsByCall =
        history.runs().stream().collect(Collectors.groupingBy(History.Run::call));

    Map<Integer, History.Step> steps =
        history.steps().stream().collect(Collectors.toMap(History.Step::call, st -> st));
    for (History.Step step : steps.values()) {
      if (step.answeredInTime() && !step.answer()) {
        found.add(
            new Violation(
                step.key(),
                String.format(
                    "call %d: its step-by-step claim returned at %.1f ms, and its %s at %.1f ms was"
                        + " refused as taken over, though the claim held the key until %.1f ms",
                    step.call(),
                    step.returned() / 1e6,
                    step.write(),
                    step.answeredAt() / 1e6,
                    step.holdsUntil() / 1e6)));
      }
    }
    List<History.Verdict> verdicts = history.verdicts();
    runsByKey.forEach(
        (key, runs) -> {
          List<History.Run> excused = new ArrayList<>();
          List<History.Pause> pauses = history.cutOffs(key);
          for (int i = 0; i < runs.size(); i++) {
            for (int j = i + 1; j < runs.size(); j++) {
              History.Run a = runs.get(i);
              History.Run b = runs.get(j);
              History.Run first = a.start() <= b.start() ? a : b;
              History.Run second = first == a ? b : a;
              if (cutOff(first, second, pauses, cutOffNanos)
                  && !storedByItself(truth, idOf.apply(key), first, verdicts)
                  && first.downstreamKey().equals(second.downstreamKey())) {
                // the documented limit: a holder cut off for longer than its lease may run on (or
                // finish unstored) while another takes over; the downstream key told both the same
                excused.add(second);
              } else if (unsettledInTime(first, second, steps)
                  && first.downstreamKey().equals(second.downstreamKey())) {
                // the step-by-step API's limit: nothing renews a claim it returned, so a caller
                // whose write did not answer while its claim held the key (a slow or failed write,
                // a pause) may see a retry take the key over once it runs out
                excused.add(second);
              } else if (a.start() < b.end() && b.start() < a.end()) {
                found.add(
                    new Violation(
                        key, "calls " + a.call() + " and " + b.call() + " ran at the same time"));
              }
            }
          }
          long effects =
              runs.stream()
                  .filter(r -> mayHaveHappened(r, reconciled) && !excused.contains(r))
                  .count();
          if (effects > 1) {
            found.add(new Violation(key, effects + " runs whose effect happened or may have"));
          }
          Optional<ClaimRecord> row = truth.find(idOf.apply(key));
          if (row.isPresent() && row.get().state() == ClaimState.COMPLETED) {
            String stored = new String(row.get().result().body(), StandardCharsets.UTF_8);
            boolean produced = runs.stream().anyMatch(r -> produced(r, stored, reconciled));
            if (!produced) {
              found.add(new Violation(key, "the row holds " + stored + ", which no run returned"));
            }
          }
        });

    for (History.Answer answer : history.answers()) {
      List<History.Run> mine = runsByCall.getOrDefault(answer.call(), List.of());
      String key = answer.key();
      String wrong =
          answer
              .result()
              .fold(
                  executed -> {
                    boolean ranIt =
                        mine.stream()
                            .anyMatch(
                                r ->
                                    r.ending() == History.Ending.RETURNED
                                        && r.value().equals(executed.value()));
                    if (!ranIt) {
                      return "told executed " + executed.value() + ", which this call did not run";
                    }
                    if (executed.completion() == GateResult.Completion.STORED
                        && !stored(truth, idOf.apply(key), executed.value())) {
                      return "told stored, but the row does not hold " + executed.value();
                    }
                    return null;
                  },
                  replayed -> {
                    if (!mine.isEmpty()) {
                      return "told replayed, but this call ran the action";
                    }
                    String v = replayed.value();
                    if (!v.startsWith("v-" + answer.variant() + "-")) {
                      return "replayed " + v + " to a call with arguments " + answer.variant();
                    }
                    boolean someoneRan =
                        runsByKey.getOrDefault(key, List.of()).stream()
                            .anyMatch(r -> produced(r, v, reconciled));
                    if (!someoneRan) {
                      return "replayed " + v + ", which no run returned";
                    }
                    return stored(truth, idOf.apply(key), v)
                        ? null
                        : "replayed " + v + ", which the row does not hold";
                  },
                  refused -> {
                    if (!mine.isEmpty()) {
                      return "told refused " + refused.reason() + ", but this call ran the action";
                    }
                    if (refused.reason() == RefusalReason.CONFLICT
                        && history.answers().stream()
                            .noneMatch(
                                a ->
                                    a.key().equals(key) && !a.variant().equals(answer.variant()))) {
                      return "refused as a conflict, but no call used other arguments";
                    }
                    return null;
                  },
                  failed -> failedWrong(failed, mine));
      if (wrong != null) {
        found.add(new Violation(key, "call " + answer.call() + ": " + wrong));
      }
    }

    found.addAll(EventChecks.check(history, runsByKey, idOf, reconciled));

    finals.forEach(
        (key, result) -> {
          boolean blocked =
              result.fold(
                  e -> false,
                  p -> false,
                  r ->
                      r.reason() == RefusalReason.IN_PROGRESS
                          || r.reason() == RefusalReason.HOLDER_UNRESPONSIVE,
                  f -> true);
          if (blocked) {
            found.add(
                new Violation(key, "after the faults stopped, still blocked: " + told(result)));
          }
          boolean fenced =
              result.fold(
                  e -> false,
                  p -> false,
                  r -> r.reason() == RefusalReason.OUTCOME_UNKNOWN,
                  f -> false);
          boolean unsettled =
              runsByKey.getOrDefault(key, List.of()).stream()
                  .anyMatch(
                      r ->
                          r.ending() == History.Ending.UNKNOWN
                              || (r.ending() == History.Ending.RETURNED
                                  && !stored(truth, idOf.apply(key), r.value())));
          if (fenced && reconciled) {
            found.add(
                new Violation(
                    key,
                    "after the faults stopped, still fenced as unknown, though a reconciler"
                        + " could tell"));
          } else if (fenced && !unsettled) {
            found.add(
                new Violation(
                    key,
                    "fenced as unknown, but every run of it failed plainly or had its result"
                        + " stored"));
          }
        });
    return found;
  }

  /** Whether the run counts as an effect that happened or may have. */
  private static boolean mayHaveHappened(History.Run r, boolean reconciled) {
    return reconciled ? r.effect() : r.ending() != History.Ending.THREW;
  }

  /**
   * Whether the run produced {@code value} as a result to store: it returned it, or (told by a
   * reconciler) its effect happened though it could not tell.
   */
  static boolean produced(History.Run r, String value, boolean reconciled) {
    return (r.ending() == History.Ending.RETURNED || reconciled && r.effect())
        && r.value().equals(value);
  }

  private static String failedWrong(GateResult.Failed<String> failed, List<History.Run> mine) {
    FailureReason reason = failed.reason();
    if (failed.effect() == GateResult.Effect.NO
        && mine.stream().anyMatch(r -> r.ending() != History.Ending.THREW)) {
      return "told "
          + reason
          + " with no effect, but this call's action returned or could not tell";
    }
    if (failed.effect() == GateResult.Effect.YES
        && mine.stream().noneMatch(r -> r.ending() == History.Ending.RETURNED)) {
      return "told " + reason + " with its effect done, but this call's action did not return";
    }
    return switch (reason) {
      case STORE_UNAVAILABLE, LEASE_LOST, GATE_CLOSED ->
          mine.isEmpty() ? null : "told " + reason + " (did not run), but this call ran";
      case ACTION_FAILED -> actionFailedWrong(failed, mine);
      case OUTCOME_UNKNOWN ->
          mine.stream().anyMatch(r -> r.ending() == History.Ending.UNKNOWN)
              ? null
              : "told the outcome is unknown, but this call's action did not say so";
      case ROLLED_BACK, COMMIT_UNKNOWN, RESULT_TOO_LARGE, ARGUMENTS_INVALID, RESULT_UNREADABLE ->
          "failed " + reason + ", which nothing in this simulation causes";
    };
  }

  private static String actionFailedWrong(
      GateResult.Failed<String> failed, List<History.Run> mine) {
    boolean threw =
        mine.stream()
            .anyMatch(
                r -> r.ending() == History.Ending.THREW || r.ending() == History.Ending.UNKNOWN);
    if (!threw) {
      return "told the action failed, but this call's action did not throw";
    }
    boolean unknown = mine.stream().anyMatch(r -> r.ending() == History.Ending.UNKNOWN);
    if (unknown && failed.effect() == GateResult.Effect.NO) {
      return "told the effect did not happen, but the action could not tell";
    }
    return null;
  }

  /**
   * @return whether {@code first}'s replica was cut off from the store (paused) for longer than
   *     {@code cutOffNanos} while {@code first} held the key (the pause began while it ran, or
   *     while its completion may still have been on its way), and {@code second} began once the
   *     lease could have run out: the documented limit, which lets a takeover run the action again
   *     (and, should that attempt fail and free the key, a later one)
   */
  private static boolean cutOff(
      History.Run first, History.Run second, List<History.Pause> pauses, long cutOffNanos) {
    return pauses.stream()
        .anyMatch(
            p ->
                p.replica().equals(first.replica())
                    && p.to() - p.from() > cutOffNanos
                    && first.start() < p.to()
                    // its completion may wait on a hung connection that long
                    && p.from() <= first.end() + FaultyStore.LONGEST_STALL.toNanos() + cutOffNanos
                    // the lease was last renewed up to a period or more before the pause began
                    && p.from() + cutOffNanos / 2 <= second.start());
  }

  /**
   * @return whether {@code first} ran through the step-by-step API and its settling write did not
   *     answer while its claim surely held the key, and {@code second} began after that
   */
  private static boolean unsettledInTime(
      History.Run first, History.Run second, Map<Integer, History.Step> steps) {
    History.Step step = steps.get(first.call());
    return step != null && !step.answeredInTime() && second.start() >= step.holdsUntil();
  }

  /**
   * Whether the row holds the run's result, stored by the run's own completion: not when a
   * reconciler was told of it, whose verdict stores it under whichever attempt's row it read.
   */
  private static boolean storedByItself(
      IdempotencyStore truth, ClaimId id, History.Run run, List<History.Verdict> verdicts) {
    return stored(truth, id, run.value())
        && verdicts.stream().noneMatch(v -> run.value().equals(v.happened()));
  }

  private static boolean stored(IdempotencyStore truth, ClaimId id, String value) {
    return truth
        .find(id)
        .filter(r -> r.state() == ClaimState.COMPLETED)
        .map(r -> new String(r.result().body(), StandardCharsets.UTF_8).equals(value))
        .orElse(false);
  }
}
