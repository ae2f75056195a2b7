package dev.mcpgate.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Adversarial review of gate-mcp-client: each test shows a way an intent runs twice, or the caller
 * is told something untrue. All of them fail on main as of 73d2024.
 */
class ReviewFindingsTest {
  private static final RetryPolicy FAST =
      RetryPolicy.builder()
          .maxAttempts(5)
          .initialBackoff(Duration.ofMillis(20))
          .maxBackoff(Duration.ofMillis(200))
          .deadline(Duration.ofSeconds(20))
          .build();

  private static final Map<String, Object> ORDER =
      Map.of("type", "object", "properties", Map.of("order_id", Map.of("type", "string")));

  private final RetryRulesTest.FlakyStore store = new RetryRulesTest.FlakyStore();
  private final IdempotencyGate gate =
      IdempotencyGate.builder(store)
          .policy(GatePolicy.builder().inFlightWait(Duration.ofMillis(100)).build())
          .build();
  private final AtomicInteger runs = new AtomicInteger();
  private Connected connected;
  private AutoCloseable other;

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

  private SyncToolSpecification tool(String name, String text) {
    return new SyncToolSpecification(
        McpSchema.Tool.builder(name, ORDER).description(name).build(),
        (exchange, request) -> {
          runs.incrementAndGet();
          return CallToolResult.builder().addTextContent(text).build();
        });
  }

  private McpGate mcpGate(dev.mcpgate.mcp.CallAuthorizer authorizer) {
    McpGate.Builder b =
        McpGate.builder(gate)
            .tenantResolver(TenantResolver.fixed("test"))
            .jsonMapper(ExactNumbers.jsonMapper());
    if (authorizer != null) {
      b.authorizer(authorizer);
    }
    return b.build();
  }

  /**
   * Finding 1. The first attempt runs the refund and its answer is lost; the retry (same key) is
   * refused by the server's CallAuthorizer (here a per-key quota; in life an expired token, a
   * revoked permission, a rate limit) with executed "no". The client returns Refused, which its
   * docs say means "the server says it did not take effect ... a new request then needs a new key",
   * though the first attempt ran. Attempts.answered() drops what it knew (known == UNKNOWN).
   */
  @ParameterizedTest
  @EnumSource(Kind.class)
  void aRefusalAfterALostAnswerMustNotBeToldAsNotExecuted(Kind kind) throws Exception {
    Set<String> seen = ConcurrentHashMap.newKeySet();
    McpGate mcp =
        mcpGate(
            (tenant, context, request) -> {
              String key = Keys.of(request);
              return seen.add(String.valueOf(key)) ? null : "quota: one call per key (test)";
            });
    connected =
        Servers.connect(
            Wire.STDIO,
            kind,
            List.of(mcp.gate(tool("refund", "refunded"), ToolPolicy.defaults())),
            ExactNumbers.jsonMapper(),
            1,
            Duration.ofMillis(1500),
            FAST);

    CallOutcome outcome =
        connected.caller().call(IntentKey.random(), "refund", Map.of("order_id", "o1"));

    assertThat(runs.get()).as("the first attempt ran the refund").isEqualTo(1);
    assertThat(outcome)
        .as("told 'did not take effect; a new request needs a new key' though it ran")
        .isNotInstanceOf(CallOutcome.Refused.class);
  }

  /**
   * Finding 2. A gated tool that reads its key only from the Idempotency-Key header (or only a
   * natural key), with required(false): its definition says idempotentHint true and key_required
   * false. The client puts the key in _meta, which the server does not read, so the server runs the
   * call ungated; the answer is lost; the client retries because of idempotentHint, and the handler
   * runs a second time.
   */
  @ParameterizedTest
  @EnumSource(Kind.class)
  void aKeyTheServerDoesNotReadMustNotBeRetriedAsIfGated(Kind kind) throws Exception {
    McpGate mcp = mcpGate(null);
    connected =
        Servers.connect(
            Wire.STDIO,
            kind,
            List.of(
                mcp.gate(
                    tool("refund_by_header", "refunded"),
                    ToolPolicy.builder().keySources(KeySource.HEADER).required(false).build())),
            ExactNumbers.jsonMapper(),
            1,
            Duration.ofMillis(1500),
            FAST);

    CallOutcome outcome =
        connected.caller().call(IntentKey.random(), "refund_by_header", Map.of("order_id", "o2"));

    assertThat(runs.get()).as("one intent, outcome " + outcome).isEqualTo(1);
  }

  /** Finding 2, natural-key variant: the natural key's argument is absent, so no key is read. */
  @Test
  void aNaturalKeyToolCalledWithoutItsArgumentIsNotRetriedAsIfGated() throws Exception {
    McpGate mcp = mcpGate(null);
    connected =
        Servers.connect(
            Wire.STDIO,
            Kind.SYNC,
            List.of(
                mcp.gate(
                    tool("refund_natural", "refunded"),
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
        connected.caller().call(IntentKey.random(), "refund_natural", Map.of("amount_cents", 5));

    assertThat(runs.get()).as("one intent, outcome " + outcome).isEqualTo(1);
  }

  /**
   * Finding 3. The tool list is cached for the client's life and notifications/tools/list_changed
   * is ignored: the server replaces the gated "refund" with an ungated one (no idempotentHint) and
   * says so; the client still retries a lost answer under the cached "gated, retry-safe" placement,
   * and the ungated handler runs twice.
   */
  @Test
  void aToolListChangeIsNotIgnored() throws Exception {
    McpGate mcp = mcpGate(null);
    Pipe toServer = new Pipe();
    Pipe toClient = new Pipe();
    McpSyncServer server =
        McpServer.sync(
                new StdioServerTransportProvider(
                    ExactNumbers.jsonMapper(), toServer.in, toClient.out))
            .jsonMapper(ExactNumbers.jsonMapper())
            .serverInfo("review", "1")
            .capabilities(McpSchema.ServerCapabilities.builder().tools(true).build())
            .tools(List.of(mcp.gate(tool("refund", "gated"), ToolPolicy.defaults())))
            .build();
    LossyStdioClientTransport transport =
        new LossyStdioClientTransport(McpJsonDefaults.getMapper(), toClient.in, toServer.out, 1);
    AtomicInteger listChanges = new AtomicInteger();
    McpSyncClient client =
        McpClient.sync(transport)
            .requestTimeout(Duration.ofMillis(1500))
            .toolsChangeConsumer(tools -> listChanges.incrementAndGet())
            .build();
    other =
        () -> {
          client.close();
          server.close();
        };
    client.initialize();
    IdempotentCalls calls = IdempotentCalls.builder(client).retryPolicy(FAST).build();
    assertThat(calls.call("refund", Map.of("order_id", "o3")))
        .isInstanceOf(CallOutcome.Completed.class);
    assertThat(runs.get()).isEqualTo(1);

    server.removeTool("refund");
    server.addTool(tool("refund", "ungated")); // no gate, no idempotentHint
    server.notifyToolsListChanged();
    long until = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (listChanges.get() == 0 && System.nanoTime() < until) {
      Thread.sleep(20);
    }
    assertThat(listChanges.get()).as("the client saw the change").isPositive();

    CallOutcome outcome = calls.call("refund", Map.of("order_id", "o4"));

    assertThat(runs.get() - 1)
        .as("the ungated tool ran once per intent, outcome " + outcome)
        .isEqualTo(1);
  }

  /**
   * Finding 4. RetryPolicy accepts a maxBackoff (or initialBackoff) past Duration.toNanos's range
   * (~292 years); the first retry then throws ArithmeticException out of call(), after the request
   * was sent: no outcome, and the random key is lost to the caller.
   */
  @ParameterizedTest
  @EnumSource(Kind.class)
  void aPolicyThatCannotBeUsedIsRefusedOrTheCallStillEndsInAnOutcome(Kind kind) throws Exception {
    assertThatThrownBy(() -> RetryPolicy.builder().maxBackoff(Duration.ofDays(365L * 1000)))
        .as("refused in the builder, naming the setting and the value")
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("maxBackoff")
        .hasMessageContaining(Duration.ofDays(365L * 1000).toString());
    assertThatThrownBy(
            () -> RetryPolicy.builder().deadline(Duration.ofDays(365L * 1000 * 1000)).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("deadline");
    // the longest accepted values still end the call in an outcome
    RetryPolicy huge =
        RetryPolicy.builder()
            .initialBackoff(Duration.ofMillis(20))
            .maxBackoff(Duration.ofDays(1))
            .deadline(Duration.ofDays(30))
            .build();
    McpGate mcp = mcpGate(null);
    connected =
        Servers.connect(
            Wire.STDIO,
            kind,
            List.of(mcp.gate(tool("refund", "refunded"), ToolPolicy.defaults())),
            ExactNumbers.jsonMapper(),
            0,
            Duration.ofSeconds(10),
            huge);
    store.claimFailures.set(1); // one idempotency_store_unavailable: a retry is due

    CallOutcome outcome =
        connected.caller().call(IntentKey.random(), "refund", Map.of("order_id", "o5"));

    assertThat(outcome).isInstanceOf(CallOutcome.Completed.class);
  }

  /**
   * Finding 1, JSON-RPC variant: the first attempt runs and its answer is lost; the retry meets a
   * JSON-RPC error (here: the server was redeployed without the tool). The caller gets ErrorAnswer,
   * which carries no "executed" and whose docs say a gated tool that threw released its key;
   * nothing says an earlier attempt of this intent ran.
   */
  @Test
  void anErrorAnswerAfterALostAnswerMustNotHideThatAnAttemptRan() throws Exception {
    McpGate mcp = mcpGate(null);
    SyncToolSpecification gated = mcp.gate(tool("refund", "refunded"), ToolPolicy.defaults());
    AtomicInteger arrivals = new AtomicInteger();
    SyncToolSpecification redeployed =
        new SyncToolSpecification(
            gated.tool(),
            (exchange, request) -> {
              if (arrivals.incrementAndGet() > 1) {
                throw new IllegalStateException("Unknown tool: refund (test: redeployed)");
              }
              return gated.callHandler().apply(exchange, request);
            });
    connected =
        Servers.connect(
            Wire.STDIO,
            Kind.SYNC,
            List.of(redeployed),
            ExactNumbers.jsonMapper(),
            1,
            Duration.ofMillis(1500),
            FAST);

    CallOutcome outcome =
        connected.caller().call(IntentKey.random(), "refund", Map.of("order_id", "o6"));

    assertThat(runs.get()).as("the first attempt ran").isEqualTo(1);
    assertThat(outcome)
        .as("an answer that says nothing of the effect hides the lost, executed attempt")
        .isNotInstanceOf(CallOutcome.ErrorAnswer.class);
  }

  /**
   * Finding 5. AsyncIdempotentCalls says "each subscription is the same intent (the same key), so
   * resubscribing retries it, never starts a new one". For a tool without idempotentHint (which the
   * client itself refuses to retry after a lost answer), Reactor's usual timeout-and-retry idiom
   * resubscribes, the call is sent again with a key the server does not read, and it runs twice.
   */
  @Test
  void resubscribingToAnUngatedToolsCallDoesNotSendItAgain() throws Exception {
    Pipe toServer = new Pipe();
    Pipe toClient = new Pipe();
    SyncToolSpecification slowPlain =
        new SyncToolSpecification(
            McpSchema.Tool.builder("plain", ORDER).description("plain").build(),
            (exchange, request) -> {
              runs.incrementAndGet();
              try {
                Thread.sleep(600);
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
              return CallToolResult.builder().addTextContent("done").build();
            });
    McpSyncServer server =
        McpServer.sync(
                new StdioServerTransportProvider(
                    ExactNumbers.jsonMapper(), toServer.in, toClient.out))
            .jsonMapper(ExactNumbers.jsonMapper())
            .serverInfo("review", "1")
            .capabilities(McpSchema.ServerCapabilities.builder().tools(true).build())
            .tools(List.of(slowPlain))
            .build();
    LossyStdioClientTransport transport =
        new LossyStdioClientTransport(McpJsonDefaults.getMapper(), toClient.in, toServer.out, 0);
    io.modelcontextprotocol.client.McpAsyncClient client =
        McpClient.async(transport).requestTimeout(Duration.ofSeconds(10)).build();
    other =
        () -> {
          client.closeGracefully().block(Duration.ofSeconds(10));
          server.close();
        };
    client.initialize().block(Duration.ofSeconds(30));
    AsyncIdempotentCalls calls = AsyncIdempotentCalls.builder(client).retryPolicy(FAST).build();

    CallOutcome outcome =
        calls
            .call(IntentKey.of("op-plain-1"), "plain", Map.of("order_id", "o7"))
            .timeout(Duration.ofMillis(300))
            .retry(1)
            .onErrorResume(e -> reactor.core.publisher.Mono.empty())
            .block(Duration.ofSeconds(10));
    Thread.sleep(1000); // let the server finish what it was sent

    assertThat(runs.get()).as("one intent, outcome " + outcome).isEqualTo(1);
  }
}
