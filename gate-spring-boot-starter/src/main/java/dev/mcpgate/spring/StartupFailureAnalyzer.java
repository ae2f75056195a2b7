package dev.mcpgate.spring;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Reports a failed startup check as one failure analysis: what is wrong under "Description", what
 * to do (the SQL to run, the properties or versions that help) under "Action". Registered in {@code
 * META-INF/spring.factories}.
 */
final class StartupFailureAnalyzer extends AbstractFailureAnalyzer<StartupFailure> {

  @Override
  protected FailureAnalysis analyze(Throwable root, StartupFailure cause) {
    return new FailureAnalysis(cause.description(), cause.action(), cause);
  }
}
