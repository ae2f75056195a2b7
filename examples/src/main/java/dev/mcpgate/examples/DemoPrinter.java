package dev.mcpgate.examples;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Prints what the demo found: a table per tool, the two arrival orders, and the verdict. */
final class DemoPrinter {
  private DemoPrinter() {}

  /**
   * @param singleCommit whether stop_session's claim is in the business database (the JDBC store),
   *     so that the claim, the stop and its stored result commit in one transaction
   * @return a note per tool, printed above its table
   */
  static Map<String, String> toolNotes(boolean singleCommit) {
    return Map.of(
        "publish_story",
        "declared safe (a replace by slug): it runs on every call; its announcement"
            + " post is claimed once per slug",
        "refund_order",
        "a required key; the downstream key goes to the payment provider, which"
            + " deduplicates by it",
        "report_reproduction",
        "keyed by its arguments (story, reporter): a natural key",
        "stop_session",
        "keyed by the app's op_id, else by (session_id, end_at, summary); "
            + (singleCommit
                ? "the claim, the stop and its stored result commit in one transaction"
                : "the stop commits in the SQL database, its claim and result in the claim"
                    + " store: two commits, not one transaction"));
  }

  static void print(Demo.Report report, PrintStream out) {
    Map<String, List<Demo.Step>> byTool = new LinkedHashMap<>();
    for (Demo.Step s : report.steps()) {
      byTool.computeIfAbsent(s.tool(), t -> new ArrayList<>()).add(s);
    }
    byTool.forEach(
        (tool, rows) -> {
          out.printf(
              "%n%s%s%n",
              tool, report.notes().containsKey(tool) ? ": " + report.notes().get(tool) : "");
          out.printf(
              "  %-38s %5s %10s %12s  %s%n",
              "step", "calls", "executions", "side effects", "outcomes");
          for (Demo.Step s : rows) {
            String flag =
                s.ok()
                    ? ""
                    : "  <-- expected "
                        + s.expectedSideEffects()
                        + " side effects"
                        + (s.expectedExecutions() < 0
                            ? ""
                            : ", " + s.expectedExecutions() + " executions");
            out.printf(
                "  %-38s %5d %10d %12d  %s%s%n",
                s.step(), s.calls(), s.executions(), s.sideEffects(), s.outcomes(), flag);
          }
        });
    out.printf("%nstop_session, two different stops of one session in both arrival orders:%n");
    out.printf("  phone then laptop: %s%n", report.orderA());
    out.printf("  laptop then phone: %s%n", report.orderB());
    out.printf("  %s%n", report.ordersAgree() ? "same stored state" : "DIFFERENT stored states");
    out.printf(
        "%n%s%n",
        report.passed()
            ? "PASSED: nothing ran twice; both arrival orders agree."
            : "FAILED: see the rows marked <-- above.");
  }
}
