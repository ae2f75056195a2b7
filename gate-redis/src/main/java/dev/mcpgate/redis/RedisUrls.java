package dev.mcpgate.redis;

import java.util.ArrayList;
import java.util.List;

/**
 * Redis URLs as they may be shown: for the adapters' startup lines and errors, which name the URL
 * the user configured but never its password.
 */
public final class RedisUrls {
  private RedisUrls() {}

  /**
   * Replaces the user information ({@code user:password}) of each comma-separated URL with {@code
   * ***}: everything after its {@code ://} (or, without one, from its start) up to its last
   * {@code @}. A comma-separated part without {@code ://} is not a URL of its own but the rest of
   * the one before it (a password holding a comma), so it is masked with that one. A password
   * holding {@code /}, {@code @}, a space, a comma or {@code ://} is masked whole; more than the
   * user information may be masked, never less, unless the password holds a comma followed by a
   * scheme and {@code ://} (which no list of URLs can tell from the next URL).
   *
   * @param urls one URL, several separated by commas, or a text that repeats one (an error message)
   * @return the same text without any password
   */
  public static String withoutPassword(String urls) {
    List<String> parts = new ArrayList<>();
    for (String part : urls.split(",", -1)) {
      if (!parts.isEmpty() && !part.contains("://")) {
        parts.set(parts.size() - 1, parts.get(parts.size() - 1) + "," + part);
      } else {
        parts.add(part);
      }
    }
    for (int i = 0; i < parts.size(); i++) {
      String part = parts.get(i);
      int scheme = part.indexOf("://");
      int start = scheme < 0 ? 0 : scheme + 3;
      int at = part.lastIndexOf('@');
      if (at >= start) {
        parts.set(i, part.substring(0, start) + "***" + part.substring(at));
      }
    }
    return String.join(",", parts);
  }
}
