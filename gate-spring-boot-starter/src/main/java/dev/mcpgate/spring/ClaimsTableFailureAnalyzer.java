package dev.mcpgate.spring;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Reports a missing or out-of-date claims table at startup as one failure analysis: the table and
 * what is wrong under "Description", the SQL to run and the properties that help under "Action".
 * Registered in {@code META-INF/spring.factories}.
 */
final class ClaimsTableFailureAnalyzer
    extends AbstractFailureAnalyzer<ClaimsTableStartupException> {

  @Override
  protected FailureAnalysis analyze(Throwable root, ClaimsTableStartupException cause) {
    return new FailureAnalysis(cause.description(), cause.action(), cause);
  }
}
