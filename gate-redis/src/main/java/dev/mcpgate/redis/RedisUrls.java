package dev.mcpgate.redis;

/**
 * Redis URLs as they may be shown: for the adapters' startup lines and errors, which name the URL
 * the user configured but never its password.
 */
public final class RedisUrls {
  private RedisUrls() {}

  /**
   * Replaces the user information ({@code user:password}) of each comma-separated URL with {@code
   * ***}: everything after its {@code ://} (or, without one, from its start) up to its last
   * {@code @}. A password holding {@code /}, {@code @} or a space is masked whole; more than the
   * user information may be masked, never less.
   *
   * @param urls one URL, several separated by commas, or a text that repeats one (an error message)
   * @return the same text without any password
   */
  public static String withoutPassword(String urls) {
    String[] parts = urls.split(",", -1);
    for (int i = 0; i < parts.length; i++) {
      String part = parts[i];
      int scheme = part.indexOf("://");
      int start = scheme < 0 ? 0 : scheme + 3;
      int at = part.lastIndexOf('@');
      if (at >= start) {
        parts[i] = part.substring(0, start) + "***" + part.substring(at);
      }
    }
    return String.join(",", parts);
  }
}
