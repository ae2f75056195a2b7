package dev.mcpgate.client;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.client.Servers.Kind;
import dev.mcpgate.core.GatePolicy;
import dev.mcpgate.core.IdempotencyGate;
import dev.mcpgate.mcp.ExactNumbers;
import dev.mcpgate.mcp.KeySource;
import dev.mcpgate.mcp.McpGate;
import dev.mcpgate.mcp.Pipe;
import dev.mcpgate.mcp.TenantResolver;
import dev.mcpgate.mcp.ToolPolicy;
import io.modelcontextprotocol.client.McpAsyncClient;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.json.McpJsonDefaults;
import io.modelcontextprotocol.server.McpServer;
import io.modelcontextprotocol.server.McpServerFeatures.SyncToolSpecification;
import io.modelcontextprotocol.server.McpSyncServer;
import io.modelcontextprotocol.server.transport.StdioServerTransportProvider;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A tool whose server reads a natural key before the key argument, redeployed to or from one that
 * reads the key argument first while an attempt's answer is lost: the attempts are gated under two
 * different claims (the natural key, the intent key), so the client must not send the retry. It did
 * (the placements were taken as gating under the intent key alike), and the refund ran twice (found
 * in review). Now the client gives up, telling the outcome unknown.
 */
class NaturalKeyFirstRedeployTest {
  private static final RetryPolicy FAST =
      RetryPolicy.builder()
          .maxAttempts(5)
          .initialBackoff(Duration.ofMillis(20))
          .maxBackoff(Duration.ofMillis(200))
          .deadline(Duration.ofSeconds(20))
          .build();

  private static final Map<String, Object> ORDER =
      Map.of("type", "object", "properties", Map.of("order_id", Map.of("type", "string")));

  private final IdempotencyGate gate =
      IdempotencyGate.builder(new RetryRulesTest.FlakyStore())
          .policy(GatePolicy.builder().inFlightWait(Duration.ofMillis(100)).build())
          .build();
  private final AtomicInteger runs = new AtomicInteger();
  private final List<AutoCloseable> closers = new ArrayList<>();
  private McpSyncServer server;

  @AfterEach
  void close() throws Exception {
    for (AutoCloseable c : closers) {
      c.close();
    }
    gate.close();
  }

  private McpGate mcpGate() {
    return McpGate.builder(gate)
        .tenantResolver(TenantResolver.fixed("test"))
        .jsonMapper(ExactNumbers.jsonMapper())
        .build();
  }

  private SyncToolSpecification tool(String name) {
    return new SyncToolSpecification(
        McpSchema.Tool.builder(name, ORDER).description(name).build(),
        (exchange, request) -> {
          runs.incrementAndGet();
          return CallToolResult.builder().addTextContent("refunded").build();
        });
  }

  private LossyStdioClientTransport serve(List<SyncToolSpecification> tools, int drops) {
    Pipe toServer = new Pipe();
    Pipe toClient = new Pipe();
    server =
        McpServer.sync(
                new StdioServerTransportProvider(
                    ExactNumbers.jsonMapper(), toServer.in, toClient.out))
            .jsonMapper(ExactNumbers.jsonMapper())
            .serverInfo("natural-first", "1")
            .capabilities(McpSchema.ServerCapabilities.builder().tools(true).build())
            .tools(tools)
            .build();
    McpSyncServer s = server;
    closers.add(s::close);
    return new LossyStdioClientTransport(
        McpJsonDefaults.getMapper(), toClient.in, toServer.out, drops);
  }

  private Servers.Caller caller(
      Kind kind, io.modelcontextprotocol.spec.McpClientTransport transport, Duration timeout) {
    if (kind == Kind.SYNC) {
      McpSyncClient client = McpClient.sync(transport).requestTimeout(timeout).build();
      closers.add(0, client::close);
      client.initialize();
      return IdempotentCalls.builder(client).retryPolicy(FAST).build()::call;
    }
    McpAsyncClient client = McpClient.async(transport).requestTimeout(timeout).build();
    closers.add(0, () -> client.closeGracefully().block(Duration.ofSeconds(10)));
    client.initialize().block(Duration.ofSeconds(30));
    AsyncIdempotentCalls calls = AsyncIdempotentCalls.builder(client).retryPolicy(FAST).build();
    return (key, tool, args) -> calls.call(key, tool, args).block(Duration.ofSeconds(60));
  }

  /** Natural key first (keySources(NATURAL, ARGUMENT)), redeployed to the default policy. */
  @ParameterizedTest
  @EnumSource(Kind.class)
  void aNaturalKeyFirstToolIsNotGatedUnderTheIntentKey(Kind kind) throws Exception {
    McpGate mcp = mcpGate();
    SyncToolSpecification naturalFirst =
        mcp.gate(
            tool("refund"),
            ToolPolicy.builder()
                .keySources(KeySource.NATURAL, KeySource.ARGUMENT)
                .naturalKey("order_id")
                .build());
    SyncToolSpecification byIntentKey = mcp.gate(tool("refund"), ToolPolicy.defaults());
    LossyStdioClientTransport transport = serve(List.of(naturalFirst), 1);
    Servers.Caller caller = caller(kind, transport, Duration.ofMillis(1500));
    Thread redeploy =
        new Thread(
            () -> {
              while (runs.get() == 0) {
                Thread.onSpinWait();
              }
              server.removeTool("refund");
              server.addTool(byIntentKey);
            });
    redeploy.start();

    CallOutcome outcome = caller.call(IntentKey.random(), "refund", Map.of("order_id", "o1"));
    redeploy.join(10_000);

    assertThat(runs.get()).as("one intent, outcome " + outcome).isEqualTo(1);
    assertThat(outcome)
        .isInstanceOfSatisfying(
            CallOutcome.GaveUp.class, g -> assertThat(g.executed()).isEqualTo(Executed.UNKNOWN));
  }

  /** The same gap the other way: the default policy redeployed to natural-key-first. */
  @ParameterizedTest
  @EnumSource(Kind.class)
  void aToolRedeployedToNaturalKeyFirstIsNotRetriedUnderTheSameClaim(Kind kind) throws Exception {
    McpGate mcp = mcpGate();
    SyncToolSpecification byIntentKey = mcp.gate(tool("refund"), ToolPolicy.defaults());
    SyncToolSpecification naturalFirst =
        mcp.gate(
            tool("refund"),
            ToolPolicy.builder()
                .keySources(KeySource.NATURAL, KeySource.ARGUMENT)
                .naturalKey("order_id")
                .build());
    LossyStdioClientTransport transport = serve(List.of(byIntentKey), 1);
    Servers.Caller caller = caller(kind, transport, Duration.ofMillis(1500));
    Thread redeploy =
        new Thread(
            () -> {
              while (runs.get() == 0) {
                Thread.onSpinWait();
              }
              server.removeTool("refund");
              server.addTool(naturalFirst);
            });
    redeploy.start();

    CallOutcome outcome = caller.call(IntentKey.random(), "refund", Map.of("order_id", "o1"));
    redeploy.join(10_000);

    assertThat(runs.get()).as("one intent, outcome " + outcome).isEqualTo(1);
    assertThat(outcome)
        .isInstanceOfSatisfying(
            CallOutcome.GaveUp.class, g -> assertThat(g.executed()).isEqualTo(Executed.UNKNOWN));
  }
}
