package dev.mcpgate.core.hash;

/** Carries the path of a bad value up the recursion, one segment per level. */
final class PathFailure extends RuntimeException {
  private static final long serialVersionUID = 1L;
  String path = "";

  PathFailure(String message) {
    super(message, null, false, false);
  }

  PathFailure under(String segment) {
    path = segment + path;
    return this;
  }
}
