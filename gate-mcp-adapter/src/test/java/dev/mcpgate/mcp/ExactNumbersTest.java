package dev.mcpgate.mcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.mcpgate.core.IdempotencyGate;
import dev.mcpgate.core.hash.CanonicalJson;
import dev.mcpgate.core.memory.InMemoryIdempotencyStore;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.json.McpJsonDefaults;
import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.math.BigDecimal;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Numbers that a double would merge are told apart end to end, on both Jackson lines (the suite
 * runs once per line), while equal values in other spellings still replay.
 */
class ExactNumbersTest {
  private final TestTools tools = new TestTools();

  @Test
  void theSdksDefaultMapperReadsDecimalsInexactlyAndTheExactOneDoesNot() throws Exception {
    assertThat(ExactNumbers.readsExactly(McpJsonDefaults.getMapper())).isFalse();
    McpJsonMapper exact = ExactNumbers.jsonMapper();
    assertThat(exact.getClass()).isEqualTo(McpJsonDefaults.getMapper().getClass());
    assertThat(ExactNumbers.readsExactly(exact)).isTrue();
    String one = CanonicalJson.toCanonicalString(exact.readValue("{\"n\":1}", Map.class));
    for (String spelling : List.of("1.0", "1e0", "10E-1", "0.1e1")) {
      assertThat(
              CanonicalJson.toCanonicalString(
                  exact.readValue("{\"n\":" + spelling + "}", Map.class)))
          .as(spelling)
          .isEqualTo(one);
    }
  }

  @Test
  void aGateOnAnInexactMapperRefusesToBuildWhenAskedTo() {
    McpGate.Builder builder =
        McpGate.builder(IdempotencyGate.builder(InMemoryIdempotencyStore.create()).build())
            .tenantResolver(TenantResolver.fixed("t"));
    assertThatThrownBy(() -> builder.requireExactNumbers().build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("9007199254740993.0")
        .hasMessageContaining("ExactNumbers.jsonMapper()");
    assertThat(builder.jsonMapper(ExactNumbers.jsonMapper()).build()).isNotNull();
  }

  @Test
  void throughARealClientTwoNumbersADoubleWouldMergeConflictAndEqualValuesReplay() {
    McpJsonMapper exact = ExactNumbers.jsonMapper();
    McpGate mcpGate =
        McpGate.builder(IdempotencyGate.builder(InMemoryIdempotencyStore.create()).build())
            .tenantResolver(TenantResolver.fromTransportContext("tenant"))
            .jsonMapper(exact)
            .requireExactNumbers()
            .build();
    try (McpHarness harness =
        McpHarness.http(
            List.of(mcpGate.gate(tools.refundSpec(), ToolPolicy.defaults())), null, exact)) {
      McpSyncClient client = harness.client("acme");

      CallToolResult first =
          client.callTool(GatedServerContract.refund("big", new BigDecimal("9007199254740993.0")));
      CallToolResult neighbour =
          client.callTool(GatedServerContract.refund("big", new BigDecimal("9007199254740992.0")));
      assertThat(first.isError()).isNotEqualTo(Boolean.TRUE);
      assertThat(GatedServerContract.error(neighbour))
          .containsEntry("type", McpGateErrors.KEY_CONFLICT);

      client.callTool(GatedServerContract.refund("one", 1));
      for (Object same :
          List.of(new BigDecimal("1.0"), new BigDecimal("1E+0"), new BigDecimal("10E-1"), 1.0)) {
        assertThat(client.callTool(GatedServerContract.refund("one", same)).meta())
            .as("%s", same)
            .containsEntry(McpGateErrors.META_REPLAYED, true);
      }
      assertThat(tools.refunds).hasValue(2);
    }
  }
}
