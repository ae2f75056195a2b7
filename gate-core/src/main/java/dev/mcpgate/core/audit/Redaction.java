package dev.mcpgate.core.audit;

import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * What of a call's arguments the audit trail keeps. The default keeps only their names: arguments
 * may be personal (an email address, a card holder), and the trail outlives the claims.
 *
 * <p>A record keeps at most {@value AuditRecord#MAX_ARGUMENTS_CHARS} characters of what a redaction
 * returns ({@link AuditRecord} cuts the rest, saying so); the redactions here stop writing there
 * themselves, so that no call can make them build a longer text.
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
   * @return the names of the arguments, sorted: {@code [amount_cents, order_id]}; past {@value
   *     AuditRecord#MAX_ARGUMENTS_CHARS} characters, the first ones and {@code …[cut: kept K of N
   *     characters]}
   */
  static Redaction argumentNames() {
    return (tool, arguments) ->
        AuditTexts.names(new TreeSet<>(arguments.keySet()), AuditRecord.MAX_ARGUMENTS_CHARS);
  }

  /**
   * @return the arguments as they are ({@code {amount_cents=500, order_id=ord_9f2}}, top-level
   *     names sorted, arrays written as lists): for tools whose arguments are known to hold nothing
   *     personal, so that operators can search them. Written without recursion, so any nesting
   *     renders on any stack; past {@value AuditRecord#MAX_ARGUMENTS_CHARS} characters, the start
   *     and {@code …[cut: kept K characters; the rest was not rendered]}
   */
  static Redaction none() {
    return (tool, arguments) ->
        AuditTexts.render(new TreeMap<>(arguments), AuditRecord.MAX_ARGUMENTS_CHARS);
  }
}
