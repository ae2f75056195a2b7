package dev.mcpgate.spring;

/**
 * The startup check found the JDBC claims table missing or out of date: what is wrong, and what to
 * do, apart, so that {@link ClaimsTableFailureAnalyzer} reports it once as Spring Boot's failure
 * analysis ("Description", "Action") instead of a stack trace that repeats the DDL at every level.
 * Its message is the description alone (every exception that wraps it repeats it); the SQL is in
 * the action, and in the cause's message.
 */
final class ClaimsTableStartupException extends IllegalStateException {
  private static final long serialVersionUID = 1L;

  private final String description;
  private final String action;

  ClaimsTableStartupException(String description, String action, Throwable cause) {
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
