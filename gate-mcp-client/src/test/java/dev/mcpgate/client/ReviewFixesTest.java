package dev.mcpgate.client;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.client.Servers.Connected;
import dev.mcpgate.client.Servers.Kind;
import dev.mcpgate.client.Servers.Wire;
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
import io.modelcontextprotocol.json.McpJsonDefaults;
import io.modelcontextprotocol.server.McpServer;
import io.modelcontextprotocol.server.McpServerFeatures.SyncToolSpecification;
import io.modelcontextprotocol.server.McpSyncServer;
import io.modelcontextprotocol.server.transport.StdioServerTransportProvider;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

/** The review's fixes do not take away what was safe: the counterparts of ReviewFindingsTest. */
class ReviewFixesTest {
  private static final RetryPolicy FAST =
      RetryPolicy.builder()
          .maxAttempts(10)
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
  private final McpGate mcp =
      McpGate.builder(gate)
          .tenantResolver(TenantResolver.fixed("test"))
          .jsonMapper(ExactNumbers.jsonMapper())
          .build();
  private final AtomicInteger runs = new AtomicInteger();
  private Connected connected;
  private AutoCloseable other;
  private McpSyncServer server;

  @AfterEach
  void close() throws Exception {
    if (connected != null) {
      connected.close();
    }
    if (other != null) {
      other.close();
    }
    gate.close();
  }

  private SyncToolSpecification tool(String name, long sleepMs) {
    return new SyncToolSpecification(
        McpSchema.Tool.builder(name, ORDER).description(name).build(),
        (exchange, request) -> {
          runs.incrementAndGet();
          try {
            Thread.sleep(sleepMs);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
          return CallToolResult.builder().addTextContent("refunded").build();
        });
  }

  /**
   * The async client over an in-process stdio server ({@link #server}) of one gated tool, the
   * client's transport losing the first {@code drops} answers of each key; both are closed after
   * the test.
   */
  private AsyncIdempotentCalls asyncCalls(SyncToolSpecification tool, int drops, Duration timeout) {
    Pipe toServer = new Pipe();
    Pipe toClient = new Pipe();
    server =
        McpServer.sync(
                new StdioServerTransportProvider(
                    ExactNumbers.jsonMapper(), toServer.in, toClient.out))
            .jsonMapper(ExactNumbers.jsonMapper())
            .serverInfo("fixes", "1")
            .capabilities(McpSchema.ServerCapabilities.builder().tools(true).build())
            .tools(List.of(mcp.gate(tool, ToolPolicy.defaults())))
            .build();
    LossyStdioClientTransport transport =
        new LossyStdioClientTransport(
            McpJsonDefaults.getMapper(), toClient.in, toServer.out, drops);
    McpAsyncClient client = McpClient.async(transport).requestTimeout(timeout).build();
    other =
        () -> {
          client.closeGracefully().block(Duration.ofSeconds(10));
          server.close();
        };
    client.initialize().block(Duration.ofSeconds(30));
    return AsyncIdempotentCalls.builder(client).retryPolicy(FAST).build();
  }

  /** A natural-key call that holds its natural key is still retried, and replayed. */
  @Test
  void aNaturalKeyCallHoldingItsKeyIsRetriedAndReplayed() throws Exception {
    connected =
        Servers.connect(
            Wire.STDIO,
            Kind.SYNC,
            List.of(
                mcp.gate(
                    tool("refund_natural", 0),
                    ToolPolicy.builder()
                        .keySources(KeySource.NATURAL)
                        .naturalKey("order_id")
                        .required(false)
                        .build())),
            ExactNumbers.jsonMapper(),
            1,
            Duration.ofMillis(1500),
            FAST);

    CallOutcome outcome =
        connected.caller().call(IntentKey.random(), "refund_natural", Map.of("order_id", "n1"));

    assertThat(outcome).isInstanceOf(CallOutcome.Completed.class);
    assertThat(((CallOutcome.Completed) outcome).replayed()).isTrue();
    assertThat(outcome.attempts()).isGreaterThan(1);
    assertThat(runs.get()).isEqualTo(1);
  }

  /**
   * Resubscribing to a gated tool's Mono after its attempt was cut off is a retry with the same
   * key: the server replays the first result, and the handler runs once.
   */
  @Test
  void resubscribingToAGatedToolsCallReplaysIt() throws Exception {
    AsyncIdempotentCalls calls = asyncCalls(tool("refund", 600), 0, Duration.ofSeconds(10));

    Mono<CallOutcome> refund =
        calls.call(IntentKey.of("op-gated-1"), "refund", Map.of("order_id", "g1"));
    CallOutcome outcome =
        refund
            .timeout(Duration.ofMillis(300))
            .onErrorResume(e -> refund)
            .block(Duration.ofSeconds(15));

    assertThat(outcome).isInstanceOf(CallOutcome.Completed.class);
    assertThat(((CallOutcome.Completed) outcome).replayed()).isTrue();
    assertThat(runs.get()).isEqualTo(1);
  }

  /**
   * The async client lists a tool again before retrying a lost answer: a tool redeployed ungated
   * (no idempotentHint) behind the cached gated definition is not sent twice.
   */
  @Test
  void theAsyncClientListsTheToolAgainBeforeARetry() throws Exception {
    AsyncIdempotentCalls calls = asyncCalls(tool("refund", 0), 1, Duration.ofMillis(1500));
    assertThat(calls.call("refund", Map.of("order_id", "a1")).block(Duration.ofSeconds(15)))
        .isInstanceOf(CallOutcome.Completed.class);
    assertThat(runs.get()).isEqualTo(1);

    server.removeTool("refund");
    server.addTool(tool("refund", 0)); // no gate, no idempotentHint; the client is not told

    CallOutcome outcome =
        calls.call("refund", Map.of("order_id", "a2")).block(Duration.ofSeconds(15));

    assertThat(runs.get() - 1).as("one run per intent, outcome " + outcome).isEqualTo(1);
    assertThat(outcome).isInstanceOf(CallOutcome.GaveUp.class);
    assertThat(((CallOutcome.GaveUp) outcome).executed()).isEqualTo(Executed.UNKNOWN);
    assertThat(outcome.attempts()).isEqualTo(1);
  }
}
