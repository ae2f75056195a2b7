package dev.mcpgate.mcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.mcpgate.core.IdempotencyGate;
import dev.mcpgate.core.memory.InMemoryIdempotencyStore;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.json.McpJsonDefaults;
import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.server.McpServer;
import io.modelcontextprotocol.server.McpSyncServer;
import io.modelcontextprotocol.server.transport.StdioServerTransportProvider;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The transport's mapper reads the arguments, not the gate's: a server whose stdio transport is on
 * the SDK's default mapper (decimals as double) while the gate is on the exact one must never
 * replay {@code 1250.0000000000000001} as {@code 1250}. Through a real client over stdio pipes, on
 * both Jackson lines (the suite runs once per line).
 */
class InexactNumbersTest {
  private static final BigDecimal NEARLY_1250 = new BigDecimal("1250.0000000000000001");

  private final TestTools tools = new TestTools();
  private final List<AutoCloseable> open = new ArrayList<>();

  /** A stdio server whose transport and builder read with {@code transportJson}. */
  private McpSyncClient serve(McpJsonMapper transportJson, McpGate mcpGate) {
    Pipe toServer = new Pipe();
    Pipe toClient = new Pipe();
    McpSyncServer server =
        McpServer.sync(new StdioServerTransportProvider(transportJson, toServer.in, toClient.out))
            .jsonMapper(transportJson)
            .serverInfo("inexact", "1")
            .capabilities(McpHarness.tools())
            .tools(mcpGate.gate(tools.refundSpec(), ToolPolicy.defaults()))
            .requestTimeout(Duration.ofSeconds(60))
            .build();
    McpSyncClient client =
        McpClient.sync(
                new PipedClientTransport(McpJsonDefaults.getMapper(), toClient.in, toServer.out))
            .requestTimeout(Duration.ofSeconds(60))
            .build();
    client.initialize();
    open.add(server::close);
    open.add(client::close);
    return client;
  }

  private static McpGate.Builder gate() {
    return McpGate.builder(IdempotencyGate.builder(InMemoryIdempotencyStore.create()).build())
        .tenantResolver(TenantResolver.fixed("local"));
  }

  @AfterEach
  void close() throws Exception {
    for (int i = open.size() - 1; i >= 0; i--) {
      open.get(i).close();
    }
  }

  @Test
  void aTransportOnTheDefaultMapperGetsDecimalsRefusedNeverReplayedAsTheirNeighbour() {
    // the server: the gate on the exact mapper, the transport on the SDK's default one
    McpSyncClient client =
        serve(McpJsonDefaults.getMapper(), gate().jsonMapper(ExactNumbers.jsonMapper()).build());

    CallToolResult first = client.callTool(GatedServerContract.refund("k-1250", 1250));
    CallToolResult nearly = client.callTool(GatedServerContract.refund("k-1250", NEARLY_1250));
    CallToolResult again = client.callTool(GatedServerContract.refund("k-1250", 1250));

    assertThat(first.isError()).isNotEqualTo(Boolean.TRUE);
    Map<String, Object> error = GatedServerContract.error(nearly);
    assertThat(error)
        .containsEntry("type", McpGateErrors.ARGUMENTS_INVALID)
        .containsEntry("executed", "no")
        .containsEntry("retry_with_same_key", false);
    assertThat(error.get("message").toString())
        .contains("$.amount_cents")
        .contains("ExactNumbers.jsonMapper()");
    assertThat(nearly.meta() == null ? Map.of() : nearly.meta())
        .doesNotContainKey(McpGateErrors.META_REPLAYED);
    // a plain integer is read exactly by every mapper: it still replays
    assertThat(again.meta()).containsEntry(McpGateErrors.META_REPLAYED, true);
    assertThat(again.structuredContent()).isEqualTo(first.structuredContent());
    assertThat(tools.refunds).hasValue(1);

    // 1250.0 is refused too: a double does not say which text it was read from
    assertThat(
            GatedServerContract.error(
                client.callTool(GatedServerContract.refund("k-1250", new BigDecimal("1250.0")))))
        .containsEntry("type", McpGateErrors.ARGUMENTS_INVALID);
    // nested values are looked at as well, and a refused call never claims its key
    Map<String, Object> nested = new LinkedHashMap<>();
    nested.put("order_id", "ord_9f2");
    nested.put("amount_cents", 7);
    nested.put("lines", List.of(Map.of("sku", "a", "price", new BigDecimal("0.1"))));
    nested.put("idempotency_key", "k-nested");
    assertThat(
            GatedServerContract.error(
                    client.callTool(
                        new io.modelcontextprotocol.spec.McpSchema.CallToolRequest(
                            "refund_order", nested)))
                .get("message")
                .toString())
        .contains("$.lines[0].price");
    assertThat(tools.refunds).hasValue(1);
  }

  @Test
  void aTransportOnTheExactMapperHashesTheDecimalExactlyAndConflicts() {
    McpJsonMapper exact = ExactNumbers.jsonMapper();
    McpSyncClient client = serve(exact, gate().jsonMapper(exact).requireExactNumbers().build());

    CallToolResult first = client.callTool(GatedServerContract.refund("k-1250", 1250));
    CallToolResult nearly = client.callTool(GatedServerContract.refund("k-1250", NEARLY_1250));
    CallToolResult again = client.callTool(GatedServerContract.refund("k-1250", 1250));
    CallToolResult spelled =
        client.callTool(GatedServerContract.refund("k-1250", new BigDecimal("1250.000")));

    assertThat(first.isError()).isNotEqualTo(Boolean.TRUE);
    assertThat(GatedServerContract.error(nearly)).containsEntry("type", McpGateErrors.KEY_CONFLICT);
    assertThat(again.meta()).containsEntry(McpGateErrors.META_REPLAYED, true);
    assertThat(spelled.meta()).containsEntry(McpGateErrors.META_REPLAYED, true);
    assertThat(tools.refunds).hasValue(1);
  }

  @Test
  void aServerThatAcceptsTheRiskHashesDoublesAsRead() {
    McpSyncClient client =
        serve(McpJsonDefaults.getMapper(), gate().acceptInexactNumbers().build());

    client.callTool(GatedServerContract.refund("k-1250", 1250));
    CallToolResult nearly = client.callTool(GatedServerContract.refund("k-1250", NEARLY_1250));

    // the risk it took: the neighbour replays the first result
    assertThat(nearly.meta()).containsEntry(McpGateErrors.META_REPLAYED, true);
    assertThat(tools.refunds).hasValue(1);
  }

  @Test
  void theTwoSwitchesContradictEachOther() {
    assertThatThrownBy(() -> gate().requireExactNumbers().acceptInexactNumbers().build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("choose one");
  }

  @Test
  void pathsNameTheFirstDoubleAndLeaveExactValuesAlone() {
    Map<String, Object> args = new LinkedHashMap<>();
    args.put("a", 1);
    args.put("b", new BigDecimal("0.1"));
    args.put("c", List.of("x", Map.of("d", 2.5f)));
    assertThat(ExactNumbers.inexactNumberPath(args)).isEqualTo("$.c[1].d");
    assertThat(ExactNumbers.inexactNumberPath(Map.of("n", Double.NaN)))
        .isNull(); // the hash refuses it
    assertThat(ExactNumbers.inexactNumberPath(Map.of("n", 1L, "s", "1.5"))).isNull();
  }
}
