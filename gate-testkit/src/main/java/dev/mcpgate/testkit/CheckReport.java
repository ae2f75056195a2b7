package dev.mcpgate.testkit;

import java.util.List;

/**
 * The text of {@link GateChecks#report()}: the survey, the ungated writes, each check's outcome.
 */
final class CheckReport {
  private CheckReport() {}

  /** How one check of one tool ended. */
  record Result(String tool, String check, GateChecks.Outcome outcome, String detail) {}

  static String format(ToolSurvey survey, List<String> ungated, List<Result> results) {
    StringBuilder sb = new StringBuilder("MCP Gate checks\n\n").append(survey.table());
    sb.append('\n')
        .append(
            ungated.isEmpty()
                ? "ungated writes: none"
                : "ungated writes (a retry may write twice): " + ungated)
        .append('\n');
    if (!results.isEmpty()) {
      int width = Math.max(4, results.stream().mapToInt(r -> r.tool().length()).max().orElse(4));
      String row = "%-" + width + "s  %-22s  %-7s  %s%n";
      sb.append('\n').append(String.format(row, "tool", "check", "outcome", "detail"));
      for (Result r : results) {
        sb.append(
            String.format(row, r.tool(), r.check(), r.outcome(), r.detail().replace('\n', ' ')));
      }
    }
    return sb.toString();
  }
}
