package dev.mcpgate.core;

import dev.mcpgate.core.internal.Checks;
import java.util.Collections;
import java.util.Map;

/**
 * One arrival of a tool call, as the gate sees it.
 *
 * @param id the claim identity: (tenant, tool, key)
 * @param arguments the tool arguments as plain JSON-like Java values (maps with string keys, lists,
 *     strings, numbers, booleans, nulls; a Jackson tree becomes such values with the MCP adapter's
 *     {@code JsonTrees}); never null (absent arguments are an empty map). The whole map is hashed,
 *     less the policy's ignored arguments, so a key that identifies too little gives a loud
 *     conflict instead of a silent replay.
 * @param keySource where the key came from ({@code argument}, {@code meta}, {@code natural}, {@code
 *     header}), for metrics and traces; null when not told
 */
public record ToolCall(ClaimId id, Map<String, ?> arguments, String keySource) {

  /** Normalizes absent arguments to an empty map. */
  public ToolCall {
    Checks.notNull(id, "id");
    arguments = arguments == null ? Collections.emptyMap() : arguments;
  }

  /**
   * @return this call, telling where its key came from
   */
  public ToolCall withKeySource(String source) {
    return new ToolCall(id, arguments, Checks.notNull(source, "source"));
  }

  /**
   * @param tenant who the call belongs to (from the server side)
   * @param tool the tool name
   * @param key the idempotency key as sent
   * @param arguments the arguments (null means none)
   * @return the call
   * @throws InvalidIdempotencyKeyException when tenant, tool or key is missing or malformed
   */
  public static ToolCall of(String tenant, String tool, String key, Map<String, ?> arguments) {
    return new ToolCall(new ClaimId(tenant, tool, key), arguments, null);
  }
}
