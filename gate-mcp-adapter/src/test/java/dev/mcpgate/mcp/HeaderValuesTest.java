package dev.mcpgate.mcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.mcpgate.core.InvalidIdempotencyKeyException;
import io.modelcontextprotocol.common.McpTransportContext;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * An {@code Idempotency-Key} header sent more than once: one value, or one value repeated, is the
 * key; two different values are refused as ambiguous, nothing run, since a retry that sends them in
 * the other order would otherwise be gated under another key and run again.
 */
class HeaderValuesTest {
  private final ToolPolicy policy = ToolPolicy.builder().keySources(KeySource.HEADER).build();
  private final CallToolRequest request = new CallToolRequest("send_mail", Map.of());

  private KeyExtractor.Found find(List<String> values) {
    Map<String, Object> context = new HashMap<>();
    KeySource.copyHeader(values, context);
    return KeyExtractor.find(policy, request, Map.of(), McpTransportContext.create(context));
  }

  @Test
  void oneValueOrOneValueRepeatedIsTheKey() {
    assertThat(find(List.of("mail-1")).key()).isEqualTo("mail-1");
    assertThat(find(List.of("mail-1", "mail-1")).key()).isEqualTo("mail-1");
    assertThat(find(List.of())).isNull();
  }

  @Test
  void twoDifferentValuesAreRefusedAsAmbiguous() {
    assertThatThrownBy(() -> find(List.of("a", "b")))
        .isInstanceOf(InvalidIdempotencyKeyException.class)
        .hasMessage(
            "the Idempotency-Key header was sent 2 times with different values; send it once");
  }
}
