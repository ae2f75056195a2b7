package dev.mcpgate.mcp;

import static java.util.Objects.requireNonNull;

import dev.mcpgate.core.ClaimId;
import io.modelcontextprotocol.spec.McpSchema;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Rewrites a tool's definition for {@code tools/list} once it is gated: the key argument in its
 * input schema (when the policy takes the key from an argument), one sentence in its description,
 * {@code idempotentHint=true}, and a {@code _meta} entry {@value McpGateErrors#META_TOOL} that says
 * how it is gated.
 */
final class ToolDefinitions {
  private ToolDefinitions() {}

  static McpSchema.Tool gated(McpSchema.Tool tool, ToolPolicy policy) {
    requireNonNull(tool, "tool must not be null");
    requireNonNull(policy, "policy must not be null");
    checkNaturalKey(tool, policy);
    Map<String, Object> schema =
        tool.inputSchema() == null
            ? new LinkedHashMap<>(Map.of("type", "object"))
            : new LinkedHashMap<>(tool.inputSchema());
    if (policy.takesKeyArgument()) {
      addKeyArgument(schema, policy);
    }
    String sentence = ModelMessages.retrySentence(policy);
    String description =
        tool.description() == null || tool.description().isBlank()
            ? sentence
            : tool.description().strip() + "\n\n" + sentence;
    McpSchema.ToolAnnotations a = tool.annotations();
    McpSchema.ToolAnnotations annotations =
        a == null
            ? new McpSchema.ToolAnnotations(null, null, null, true, null, null)
            : new McpSchema.ToolAnnotations(
                a.title(),
                a.readOnlyHint(),
                a.destructiveHint(),
                true,
                a.openWorldHint(),
                a.returnDirect());
    Map<String, Object> meta =
        tool.meta() == null ? new LinkedHashMap<>() : new LinkedHashMap<>(tool.meta());
    meta.put(McpGateErrors.META_TOOL, gating(policy));
    return new McpSchema.Tool(
        tool.name(),
        tool.title(),
        description,
        schema,
        tool.outputSchema(),
        annotations,
        meta,
        tool.icons());
  }

  /**
   * A natural key must name arguments the tool declares, where its input schema lists them: a name
   * it does not declare (a typo, a renamed parameter) is never sent, so no call could carry the
   * key. A schema without {@code properties} declares nothing and is not checked.
   *
   * @throws IllegalArgumentException naming the tool, the names and the declared arguments
   */
  private static void checkNaturalKey(McpSchema.Tool tool, ToolPolicy policy) {
    if (policy.naturalKey().isEmpty()
        || tool.inputSchema() == null
        || !(tool.inputSchema().get("properties") instanceof Map<?, ?> declared)) {
      return;
    }
    List<String> missing =
        policy.naturalKey().stream().filter(name -> !declared.containsKey(name)).toList();
    if (!missing.isEmpty()) {
      throw new IllegalArgumentException(
          "the natural key of tool "
              + tool.name()
              + " names "
              + missing
              + ", which its input schema does not declare (it declares "
              + declared.keySet()
              + "): no call could carry that key; name the tool's own arguments");
    }
  }

  private static void addKeyArgument(Map<String, Object> schema, ToolPolicy policy) {
    @SuppressWarnings("unchecked")
    Map<String, Object> properties =
        schema.get("properties") instanceof Map<?, ?> p
            ? new LinkedHashMap<>((Map<String, Object>) p)
            : new LinkedHashMap<>();
    // The key's rules are said in words, not as "type"/"minLength"/"maxLength": the SDK checks
    // a schema before the handler and answers a breach with a generic error, and every key
    // problem must get the gate's typed refusal (idempotency_key_invalid) instead.
    Map<String, Object> keyProperty = new LinkedHashMap<>();
    keyProperty.put(
        "description",
        (policy.keyDescription() != null
                ? policy.keyDescription()
                : ModelMessages.KEY_ARGUMENT_DESCRIPTION)
            + " A string of 1 to "
            + ClaimId.MAX_LENGTH
            + " characters.");
    properties.put(policy.keyArgument(), keyProperty);
    schema.put("properties", properties);
    if (policy.keyArgumentRequiredInSchema()) {
      List<Object> required =
          schema.get("required") instanceof List<?> r ? new ArrayList<>(r) : new ArrayList<>();
      if (!required.contains(policy.keyArgument())) {
        required.add(policy.keyArgument());
      }
      schema.put("required", required);
    }
  }

  private static Map<String, Object> gating(ToolPolicy policy) {
    Map<String, Object> gating = new LinkedHashMap<>();
    gating.put("key_sources", policy.keySources().stream().map(KeySource::wireName).toList());
    if (policy.keySources().contains(KeySource.ARGUMENT)) {
      gating.put("key_argument", policy.keyArgument());
    }
    if (policy.keySources().contains(KeySource.META)) {
      gating.put("meta_key", McpGateErrors.META_KEY); // where in _meta a client puts its key
    }
    if (!policy.naturalKey().isEmpty()) {
      gating.put("natural_key", policy.naturalKey());
    }
    gating.put("key_required", policy.required());
    gating.put("in_flight", policy.inFlight().name().toLowerCase(Locale.ROOT));
    return gating;
  }
}
