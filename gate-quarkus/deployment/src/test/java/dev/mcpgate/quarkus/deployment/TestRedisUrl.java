package dev.mcpgate.quarkus.deployment;

import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * The real Redis of the Redis tests: {@code MCPGATE_TEST_REDIS_URL} (and {@code
 * MCPGATE_TEST_REDIS_CLUSTER_URL}; {@code .ci/run} sets both). Without it a test is skipped with a
 * console line, or fails when {@code MCPGATE_TEST_REQUIRE_ALL=true}. Never a mock.
 */
final class TestRedisUrl {
  static final String SINGLE = "MCPGATE_TEST_REDIS_URL";
  static final String CLUSTER = "MCPGATE_TEST_REDIS_CLUSTER_URL";

  private TestRedisUrl() {}

  /**
   * @return the variable's value, else skips (or fails) the calling test
   */
  static String required(String variable) {
    String value = value(variable);
    if (value == null) {
      String message = message(variable);
      if (requireAll()) {
        Assertions.fail(
            message + " (MCPGATE_TEST_REQUIRE_ALL=true: a skipped backend is a failure)");
      }
      Assumptions.abort(message);
    }
    return value;
  }

  private static String value(String variable) {
    String value = System.getenv(variable);
    return value == null || value.isBlank() ? null : value.strip();
  }

  private static boolean requireAll() {
    return "true".equalsIgnoreCase(System.getenv("MCPGATE_TEST_REQUIRE_ALL"));
  }

  private static String message(String variable) {
    String message =
        "the Quarkus extension's Redis tests need a real Redis: " + variable + " is not set";
    // said on the console as every backend says it, never a silent skip
    System.err.println("[mcpgate tests] Quarkus extension on Redis: SKIPPED, " + message);
    return message;
  }

  /**
   * Skips a {@code QuarkusUnitTest} class before its application is built (which needs the URL), or
   * fails it when {@code MCPGATE_TEST_REQUIRE_ALL=true}.
   */
  abstract static class Required implements ExecutionCondition {
    private final String variable;

    Required(String variable) {
      this.variable = variable;
    }

    @Override
    public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
      if (value(variable) != null) {
        return ConditionEvaluationResult.enabled(variable + " is set");
      }
      String message = message(variable);
      if (requireAll()) {
        throw new IllegalStateException(
            message + " (MCPGATE_TEST_REQUIRE_ALL=true: a skipped backend is a failure)");
      }
      return ConditionEvaluationResult.disabled(message);
    }
  }

  /** Needs {@code MCPGATE_TEST_REDIS_URL}. */
  static final class Single extends Required {
    Single() {
      super(SINGLE);
    }
  }

  /** Needs {@code MCPGATE_TEST_REDIS_CLUSTER_URL}. */
  static final class Cluster extends Required {
    Cluster() {
      super(CLUSTER);
    }
  }
}
