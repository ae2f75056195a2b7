package dev.mcpgate.client;

import static org.assertj.core.api.Assertions.assertThat;

import io.modelcontextprotocol.spec.McpSchema;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Which tools' lost answers may be sent again: only where the server reads the client's key. */
class KeyPlacementTest {
  private static McpSchema.Tool tool(Map<String, Object> gating, String... properties) {
    Map<String, Object> props = new java.util.LinkedHashMap<>();
    for (String p : properties) {
      props.put(p, Map.of("type", "string"));
    }
    return McpSchema.Tool.builder("t", Map.of("type", "object", "properties", props))
        .annotations(new McpSchema.ToolAnnotations(null, null, null, true, null, null))
        .meta(gating == null ? null : Map.of(KeyPlacement.META_TOOL, gating))
        .build();
  }

  private static KeyPlacement of(McpSchema.Tool tool) {
    return KeyPlacement.of(tool, IdempotentCalls.DEFAULT_KEY_ARGUMENT);
  }

  @Test
  void aKeyArgumentTheServerReadsIsRetrySafe() {
    KeyPlacement p =
        of(
            tool(
                Map.of("key_sources", List.of("argument"), "key_argument", "idempotency_key"),
                "idempotency_key",
                "order_id"));
    assertThat(p.inArgument()).isTrue();
    assertThat(p.retrySafe(Map.of())).isTrue();
  }

  @Test
  void aKeyArgumentMissingFromTheSchemaIsNotRead() {
    KeyPlacement p =
        of(
            tool(
                Map.of("key_sources", List.of("argument"), "key_argument", "idempotency_key"),
                "order_id"));
    assertThat(p.retrySafe(Map.of("order_id", "o1"))).isFalse();
  }

  @Test
  void metaInKeySourcesIsRead() {
    KeyPlacement p = of(tool(Map.of("key_sources", List.of("header", "meta")), "order_id"));
    assertThat(p.inArgument()).isFalse();
    assertThat(p.retrySafe(Map.of())).isTrue();
  }

  /**
   * Review: a natural key read before the key argument gates a call that holds it under the natural
   * key, and one that does not under the intent key, so a change of the tool's sources between two
   * attempts is seen as a change of claim.
   */
  @Test
  void aNaturalKeyReadFirstGatesACallThatHoldsItUnderIt() {
    KeyPlacement naturalFirst =
        of(
            tool(
                Map.of(
                    "key_sources",
                    List.of("natural", "argument"),
                    "key_argument",
                    "idempotency_key",
                    "natural_key",
                    List.of("order_id")),
                "idempotency_key",
                "order_id"));
    KeyPlacement argumentOnly =
        of(
            tool(
                Map.of("key_sources", List.of("argument"), "key_argument", "idempotency_key"),
                "idempotency_key",
                "order_id"));
    assertThat(naturalFirst.claim(Map.of("order_id", "o1")))
        .isEqualTo(new KeyPlacement.Claim(false, List.of("order_id")));
    assertThat(naturalFirst.claim(Map.of())).isEqualTo(new KeyPlacement.Claim(true, List.of()));
    assertThat(naturalFirst.claim(Map.of("order_id", "o1")))
        .isNotEqualTo(argumentOnly.claim(Map.of("order_id", "o1")));
    assertThat(naturalFirst.retrySafe(Map.of("order_id", "o1"))).isTrue();
  }

  @Test
  void aHeaderOnlyToolIsNotRetrySafe() {
    KeyPlacement p = of(tool(Map.of("key_sources", List.of("header")), "order_id"));
    assertThat(p.retrySafe(Map.of("order_id", "o1"))).isFalse();
  }

  @Test
  void aNaturalKeyIsRetrySafeOnlyWhenTheCallHoldsItWhole() {
    KeyPlacement p =
        of(
            tool(
                Map.of("key_sources", List.of("natural"), "natural_key", List.of("a", "b")),
                "a",
                "b"));
    assertThat(p.retrySafe(Map.of("a", 1, "b", 2))).isTrue();
    assertThat(p.retrySafe(Map.of("a", 1))).isFalse();
  }

  @Test
  void aToolWithoutTheHintIsNeverRetrySafe() {
    McpSchema.Tool plain =
        McpSchema.Tool.builder(
                "t",
                Map.of(
                    "type",
                    "object",
                    "properties",
                    Map.of("idempotency_key", Map.of("type", "string"))))
            .build();
    assertThat(of(plain).retrySafe(Map.of())).isFalse();
  }
}
