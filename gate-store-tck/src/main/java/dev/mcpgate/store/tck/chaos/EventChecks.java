package dev.mcpgate.store.tck.chaos;

import dev.mcpgate.core.ClaimId;
import dev.mcpgate.core.DownstreamKey;
import dev.mcpgate.core.GateEvent;
import dev.mcpgate.core.GateResult;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * The part of the {@link PromiseChecker} that reads the gates' events and the actions' contexts.
 */
final class EventChecks {
  private EventChecks() {}

  /**
   * The events and the {@link dev.mcpgate.core.ClaimContext} agree with what happened: each run was
   * acquired (an {@code ACQUIRED} event of its key and attempt on its replica, before it started),
   * under an attempt number of its own and the key's one downstream key; each result told stored or
   * replayed has its {@code COMPLETED} or {@code REPLAYED} event; and a {@code COMPLETED} event is
   * of an attempt whose action returned (or, told by a reconciler, whose effect happened), or came
   * after a reconciler was told that an effect of its key happened (which may have been another
   * attempt's: a holder cut off from the store that ran on).
   */
  static List<PromiseChecker.Violation> check(
      History history,
      Map<String, List<History.Run>> runsByKey,
      Function<String, ClaimId> idOf,
      boolean reconciled) {
    List<PromiseChecker.Violation> found = new ArrayList<>();
    List<History.Event> events = history.events();
    List<History.Verdict> verdicts = history.verdicts();
    runsByKey.forEach(
        (key, runs) -> {
          String downstream = DownstreamKey.of(idOf.apply(key));
          for (History.Run r : runs) {
            if (!r.downstreamKey().equals(downstream)) {
              found.add(
                  new PromiseChecker.Violation(
                      key, "call " + r.call() + " got another downstream key"));
            }
            boolean acquired =
                events.stream()
                    .anyMatch(
                        e ->
                            e.type() == GateEvent.Type.ACQUIRED
                                && e.key().equals(key)
                                && e.attempt() == r.attempt()
                                && e.replica().equals(r.replica())
                                && e.at() <= r.start());
            if (!acquired) {
              found.add(
                  new PromiseChecker.Violation(
                      key, "call " + r.call() + " ran attempt " + r.attempt() + " unannounced"));
            }
          }
          for (History.Event e : events) {
            if (e.type() == GateEvent.Type.COMPLETED
                && e.key().equals(key)
                && runs.stream()
                    .noneMatch(
                        r ->
                            r.attempt() == e.attempt()
                                && PromiseChecker.produced(r, r.value(), reconciled))
                && verdicts.stream()
                    .noneMatch(
                        v -> v.key().equals(key) && v.happened() != null && v.at() <= e.at())) {
              found.add(
                  new PromiseChecker.Violation(
                      key,
                      "COMPLETED for attempt "
                          + e.attempt()
                          + ", whose action did not return"
                          + (reconciled ? " nor have its effect happen" : "")));
            }
          }
        });
    for (History.Answer a : history.answers()) {
      GateEvent.Type expected =
          a.result()
              .fold(
                  e ->
                      e.completion() == GateResult.Completion.STORED
                          ? GateEvent.Type.COMPLETED
                          : null,
                  p -> GateEvent.Type.REPLAYED,
                  r -> null,
                  f -> null);
      if (expected != null
          && events.stream()
              .noneMatch(
                  e ->
                      e.type() == expected
                          && e.key().equals(a.key())
                          && e.attempt() == a.result().attempt()
                          && e.at() <= a.at())) {
        found.add(
            new PromiseChecker.Violation(
                a.key(),
                "call "
                    + a.call()
                    + " told "
                    + PromiseChecker.told(a.result())
                    + ", no "
                    + expected));
      }
    }
    return found;
  }
}
