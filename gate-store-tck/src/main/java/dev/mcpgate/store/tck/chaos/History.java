package dev.mcpgate.store.tck.chaos;

import dev.mcpgate.core.GateEvent;
import dev.mcpgate.core.GateListener;
import dev.mcpgate.core.GateResult;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.function.LongSupplier;

/**
 * What happened in one run, as the clients and the actions saw it: each action that ran (its call,
 * its interval, how it ended) and each answer a call got. The checker reads only this and the
 * store; nothing of the engine.
 */
final class History {
  /**
   * One run of an action, by the call whose attempt ran it; {@code effect} is whether its effect
   * happened, as the downstream system knows it: when it returned, not when it threw plainly, and
   * by the seed when it could not tell.
   */
  record Run(
      int call,
      String key,
      int attempt,
      long start,
      long end,
      String value,
      Ending ending,
      boolean effect,
      String replica,
      String downstreamKey) {}

  /** An event a replica's gate emitted: its type, key and attempt, and when. */
  record Event(String replica, GateEvent.Type type, String key, int attempt, long at) {}

  /**
   * What a reconciler was told about a key by the downstream system: the value of the effect that
   * happened under its downstream key, or null when none had.
   */
  record Verdict(String key, String happened, long at) {}

  /** A replica cut off from the store (paused) from {@code from} to {@code to}. */
  record Pause(String replica, long from, long to) {}

  /** The store extended {@code replica}'s lease of {@code key} at {@code at}. */
  record Extended(String replica, String key, long at) {}

  /** How an action ended. */
  enum Ending {
    /** It returned {@link Run#value()}: its effect happened. */
    RETURNED,
    /** It threw a plain exception: by the policy, its effect did not happen. */
    THREW,
    /**
     * It threw an outcome-unknown exception: its effect may have happened (only the downstream
     * system knows, {@link Run#effect()}).
     */
    UNKNOWN
  }

  /**
   * A step-by-step attempt: its claim returned acquired at {@code returned} and holds the key until
   * {@code holdsUntil} at least; the write that settled it ({@code complete}, {@code release} or
   * {@code markUnknown}) answered {@code answer} at {@code answeredAt} (null: it failed).
   */
  record Step(
      int call,
      String key,
      long returned,
      long holdsUntil,
      String write,
      Boolean answer,
      long answeredAt) {

    /** Whether its write answered, either way, while the claim surely held the key. */
    boolean answeredInTime() {
      return answer != null && answeredAt <= holdsUntil;
    }
  }

  /** The answer one call got. */
  record Answer(int call, String key, String variant, GateResult<String> result, long at) {}

  private final LongSupplier clock;
  private final long origin;
  private final List<Run> runs = new ArrayList<>();
  private final List<Pause> pauses = new ArrayList<>();
  private final List<Extended> extended = new ArrayList<>();
  private final List<Pause> renewalFaults = new ArrayList<>(); // from = to = when it was drawn
  private final List<Event> events = new ArrayList<>();
  private final List<Answer> answers = new ArrayList<>();
  private final List<Verdict> verdicts = new ArrayList<>();
  private final List<Step> steps = new ArrayList<>();
  private final List<String> lines = new ArrayList<>();

  /**
   * @param clock nanoseconds, real or virtual
   */
  History(LongSupplier clock) {
    this.clock = clock;
    this.origin = clock.getAsLong();
  }

  long now() {
    return clock.getAsLong() - origin;
  }

  synchronized void paused(String replica, long from, long to) {
    pauses.add(new Pause(replica, from - origin, to - origin));
    lines.add(
        String.format(
            "%8.1f ms  %s paused for %.1f ms", (from - origin) / 1e6, replica, (to - from) / 1e6));
  }

  /**
   * @return a listener that records {@code replica}'s events of a key here (renewals left out: they
   *     are many, and say nothing the checker reads)
   */
  GateListener listener(String replica) {
    return e -> {
      if (e.type() != GateEvent.Type.LEASE_RENEWED && e.id() != null) { // a rejection has none
        synchronized (this) {
          events.add(new Event(replica, e.type(), e.id().key(), e.attempt(), now()));
        }
      }
    };
  }

  synchronized List<Event> events() {
    return List.copyOf(events);
  }

  /** A renewal of {@code replica}'s failed, stalled or lost its answer, now. */
  synchronized void renewalFault(String replica) {
    long at = now();
    renewalFaults.add(new Pause(replica, at, at));
  }

  /** The store extended {@code replica}'s lease of {@code key}, now. */
  synchronized void extended(String replica, String key) {
    extended.add(new Extended(replica, key, now()));
  }

  /**
   * How long each replica's lease of {@code key} went without the store extending it while the
   * replica was paused: its pauses, one that begins as (or before) the one before it ends merged
   * with it (seed 2,633,156: 693 ms then 474 ms, each shorter than the lease less a period,
   * together longer), then split at each instant the store extended that lease (a renewal stalled
   * by a pause acts as it ends, and may act inside another pause). A pause that follows a renewal
   * fault of its replica (a renewal that failed, stalled or lost its answer after the lease was
   * last extended) cuts the lease off from that last extension (seed 7,808,520: a renewal stalled
   * past its deadline, then a pause of 515 ms, 1,016 ms without an extension in all).
   */
  synchronized List<Pause> cutOffs(String key) {
    List<Extended> renewals = new ArrayList<>();
    for (Extended e : extended) {
      if (e.key().equals(key)) {
        renewals.add(e);
      }
    }
    renewals.sort(Comparator.comparingLong(Extended::at));
    List<Pause> split = new ArrayList<>();
    for (Pause merged : mergedPauses()) {
      long from = sinceLastExtension(merged, renewals);
      for (Extended e : renewals) {
        if (e.replica().equals(merged.replica()) && e.at() >= from && e.at() <= merged.to()) {
          split.add(new Pause(merged.replica(), from, e.at()));
          from = e.at();
        }
      }
      split.add(new Pause(merged.replica(), from, merged.to()));
    }
    return split;
  }

  /**
   * @return when {@code pause}'s replica last had the lease extended before it, when one of its
   *     renewals faulted between that extension and the pause; else the pause's start
   */
  private long sinceLastExtension(Pause pause, List<Extended> renewals) {
    long last = Long.MIN_VALUE;
    for (Extended e : renewals) {
      if (e.replica().equals(pause.replica()) && e.at() <= pause.from()) {
        last = Math.max(last, e.at());
      }
    }
    long lastExtension = last;
    boolean faulted =
        lastExtension != Long.MIN_VALUE
            && renewalFaults.stream()
                .anyMatch(
                    f ->
                        f.replica().equals(pause.replica())
                            && f.from() >= lastExtension
                            && f.from() <= pause.from());
    return faulted ? lastExtension : pause.from();
  }

  private List<Pause> mergedPauses() {
    List<Pause> sorted = new ArrayList<>(pauses);
    sorted.sort(Comparator.comparing(Pause::replica).thenComparingLong(Pause::from));
    List<Pause> merged = new ArrayList<>();
    for (Pause p : sorted) {
      Pause last = merged.isEmpty() ? null : merged.get(merged.size() - 1);
      if (last != null && last.replica().equals(p.replica()) && p.from() <= last.to()) {
        merged.set(
            merged.size() - 1, new Pause(p.replica(), last.from(), Math.max(last.to(), p.to())));
      } else {
        merged.add(p);
      }
    }
    return merged;
  }

  /**
   * Every line and every event, for comparing two runs of one seed: the events of one instant in a
   * fixed order (a renewal batch tells its leases in no fixed order).
   */
  synchronized String all() {
    List<String> told = new ArrayList<>();
    for (Event e : events) {
      told.add(
          String.format("%14d %s %s %s %d", e.at(), e.replica(), e.key(), e.type(), e.attempt()));
    }
    Collections.sort(told);
    return String.join("\n", lines) + "\n" + String.join("\n", told);
  }

  synchronized void ran(Run run) {
    runs.add(run);
    lines.add(
        String.format(
            "%8.1f ms  call %d ran %s on %s (attempt %d, %.1f ms): %s%s %s",
            run.end() / 1e6,
            run.call(),
            run.key(),
            run.replica(),
            run.attempt(),
            (run.end() - run.start()) / 1e6,
            run.ending(),
            run.ending() == Ending.UNKNOWN ? (run.effect() ? " (happened)" : " (did not)") : "",
            run.value()));
  }

  synchronized void stepped(Step step) {
    steps.add(step);
    lines.add(
        String.format(
            "%8.1f ms  call %d %s: %s %s (claim returned at %.1f ms, holds until %.1f ms)",
            step.answeredAt() / 1e6,
            step.call(),
            step.key(),
            step.write(),
            step.answer() == null ? "failed" : step.answer() ? "done" : "refused",
            step.returned() / 1e6,
            step.holdsUntil() / 1e6));
  }

  synchronized List<Step> steps() {
    return List.copyOf(steps);
  }

  synchronized void answered(Answer answer) {
    answers.add(answer);
    lines.add(
        String.format(
            "%8.1f ms  call %d (%s %s) told %s",
            answer.at() / 1e6,
            answer.call(),
            answer.key(),
            answer.variant(),
            PromiseChecker.told(answer.result())));
  }

  synchronized void reconciled(String key, String happened) {
    Verdict verdict = new Verdict(key, happened, now());
    verdicts.add(verdict);
    lines.add(
        String.format(
            "%8.1f ms  reconciler for %s: %s",
            verdict.at() / 1e6, key, happened == null ? "not happened" : happened));
  }

  synchronized List<Verdict> verdicts() {
    return List.copyOf(verdicts);
  }

  synchronized void note(String line) {
    lines.add(String.format("%8.1f ms  %s", now() / 1e6, line));
  }

  synchronized List<Run> runs() {
    return List.copyOf(runs);
  }

  synchronized List<Answer> answers() {
    return List.copyOf(answers);
  }

  /** The last lines that name {@code key}, for a failure's message. */
  synchronized String about(String key, int max) {
    List<String> mine = new ArrayList<>();
    for (String line : lines) {
      if (line.contains(" " + key + " ")
          || line.contains(" " + key + ":")
          || line.contains(" paused for ")) {
        mine.add(line);
      }
    }
    return String.join("\n", mine.subList(Math.max(0, mine.size() - max), mine.size()));
  }
}
