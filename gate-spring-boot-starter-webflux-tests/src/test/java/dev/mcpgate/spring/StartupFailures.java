package dev.mcpgate.spring;

import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * The failure analysis Spring Boot reports for a failed startup check of the starter ({@link
 * StartupFailureAnalyzer}), for the tests of other packages.
 */
public final class StartupFailures {
  private StartupFailures() {}

  /**
   * @param failure what a failed startup threw
   * @return the analysis of the {@link StartupFailure} in its cause chain, or null when there is
   *     none
   */
  public static FailureAnalysis analysis(Throwable failure) {
    return new StartupFailureAnalyzer().analyze(failure);
  }
}
