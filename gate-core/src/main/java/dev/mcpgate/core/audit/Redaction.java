package dev.mcpgate.core.audit;

import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * What of a call's arguments the audit trail keeps. The default keeps only their names: arguments
 * may be personal (an email address, a card holder), and the trail outlives the claims.
 */
@FunctionalInterface
public interface Redaction {

  /**
   * @param tool the tool
   * @param arguments the arguments as the client sent them (the key argument included)
   * @return the text to keep
   */
  String redact(String tool, Map<String, Object> arguments);

  /**
   * @return the names of the arguments, sorted: {@code [amount_cents, order_id]}
   */
  static Redaction argumentNames() {
    return (tool, arguments) -> new TreeSet<>(arguments.keySet()).toString();
  }

  /**
   * @return the arguments as they are: for tools whose arguments are known to hold nothing
   *     personal, so that operators can search them
   */
  static Redaction none() {
    return (tool, arguments) -> new TreeMap<>(arguments).toString();
  }
}
