package dev.mcpgate.core.sim;

import dev.mcpgate.core.GateResult;
import java.util.ArrayList;
import java.util.List;

/**
 * What happened in one run, as the clients and the actions saw it: each action that ran (its call,
 * its interval, how it ended) and each answer a call got. The checker reads only this and the
 * store; nothing of the engine.
 */
final class History {
  /** One run of an action, by the call whose attempt ran it. */
  record Run(
      int call, String key, int attempt, long start, long end, String value, Ending ending) {}

  /** How an action ended. */
  enum Ending {
    /** It returned {@link Run#value()}: its effect happened. */
    RETURNED,
    /** It threw a plain exception: by the policy, its effect did not happen. */
    THREW,
    /** It threw an outcome-unknown exception: its effect may have happened. */
    UNKNOWN
  }

  /** The answer one call got. */
  record Answer(int call, String key, String variant, GateResult<String> result, long at) {}

  private final long origin = System.nanoTime();
  private final List<Run> runs = new ArrayList<>();
  private final List<Answer> answers = new ArrayList<>();
  private final List<String> lines = new ArrayList<>();

  long now() {
    return System.nanoTime() - origin;
  }

  synchronized void ran(Run run) {
    runs.add(run);
    lines.add(
        String.format(
            "%8.1f ms  call %d ran %s (attempt %d, %.1f ms): %s %s",
            run.end() / 1e6,
            run.call(),
            run.key(),
            run.attempt(),
            (run.end() - run.start()) / 1e6,
            run.ending(),
            run.value()));
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
      if (line.contains(" " + key + " ") || line.contains(" " + key + ":")) {
        mine.add(line);
      }
    }
    return String.join("\n", mine.subList(Math.max(0, mine.size() - max), mine.size()));
  }
}
