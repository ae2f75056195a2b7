package dev.mcpgate.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.core.IdempotencyGate;
import dev.mcpgate.core.codec.AesGcmResultCodec;
import dev.mcpgate.core.memory.InMemoryIdempotencyStore;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.util.List;
import java.util.Map;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.Test;

/**
 * A stored result the server cannot read back (the codec key was rotated without keeping the old
 * one): the client reads one of our typed answers over a real transport, which says the call ran
 * and is not worth retrying with the same key, and holds none of the operator's details (the
 * tenant, the key, the key ids).
 */
class UnreadableResultTest {
  private static final String TENANT = "alice@corp.example";

  private static AesGcmResultCodec codec(String id, int fill) {
    byte[] key = new byte[32];
    java.util.Arrays.fill(key, (byte) fill);
    return AesGcmResultCodec.builder().currentKey(id, new SecretKeySpec(key, "AES")).build();
  }

  private static CallToolResult callOnce(
      InMemoryIdempotencyStore store, AesGcmResultCodec codec, TestTools tools) {
    try (IdempotencyGate gate = IdempotencyGate.builder(store).codec(codec).build();
        McpHarness harness =
            McpHarness.stdio(
                List.of(
                    McpGate.builder(gate)
                        .tenantResolver(TenantResolver.fixed(TENANT))
                        .build()
                        .gate(tools.refundSpec(), ToolPolicy.defaults())))) {
      return harness.client("acme").callTool(GatedServerContract.refund("k-rotated-7", 500));
    }
  }

  @Test
  void aResultTheCodecCannotReadIsATypedAnswerWithoutTheOperatorsDetails() {
    InMemoryIdempotencyStore store = InMemoryIdempotencyStore.create();
    TestTools tools = new TestTools();
    CallToolResult first = callOnce(store, codec("kms-2026-12", 1), tools);
    assertThat(first.isError()).isNotEqualTo(Boolean.TRUE);

    CallToolResult retry = callOnce(store, codec("kms-2027-06", 2), tools);

    assertThat(tools.refunds).as("the retry ran nothing").hasValue(1);
    assertThat(retry.isError()).isTrue();
    @SuppressWarnings("unchecked")
    Map<String, Object> error =
        (Map<String, Object>) ((Map<String, Object>) retry.structuredContent()).get("error");
    assertThat(error)
        .containsEntry("type", McpGateErrors.OUTCOME_UNKNOWN)
        .containsEntry("executed", "yes")
        .containsEntry("retry_with_same_key", false);
    String text = retry.content().toString() + retry.structuredContent();
    assertThat(text)
        .doesNotContain(
            "alice", "corp.example", "k-rotated-7", "kms-2026-12", "kms-2027-06", "h1:");
  }
}
