package dev.mcpgate.spring;

/**
 * A startup check failed (the JDBC claims table is missing or out of date, the application runs a
 * Spring Boot or Spring AI line the starter does not support, or a WebFlux server's sync tools
 * cannot be gated per caller): what is wrong, and what to do, apart, so that {@link
 * StartupFailureAnalyzer} reports it once as Spring Boot's failure analysis ("Description",
 * "Action") instead of a stack trace that repeats the action at every level. Its message is the
 * description alone (every exception that wraps it repeats it).
 */
final class StartupFailure extends IllegalStateException {
  private static final long serialVersionUID = 1L;

  private final String description;
  private final String action;

  StartupFailure(String description, String action, Throwable cause) {
    super(description, cause);
    this.description = description;
    this.action = action;
  }

  String description() {
    return description;
  }

  String action() {
    return action;
  }
}
