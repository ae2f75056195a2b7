package dev.mcpgate.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.mcpgate.client.Servers.Connected;
import dev.mcpgate.client.Servers.Kind;
import dev.mcpgate.client.Servers.Wire;
import dev.mcpgate.core.GatePolicy;
import dev.mcpgate.core.IdempotencyGate;
import dev.mcpgate.core.OutcomeUnknownException;
import dev.mcpgate.core.memory.InMemoryIdempotencyStore;
import dev.mcpgate.core.spi.ClaimAttempt;
import dev.mcpgate.core.spi.ClaimRequest;
import dev.mcpgate.core.spi.ForwardingIdempotencyStore;
import dev.mcpgate.mcp.ExactNumbers;
import dev.mcpgate.mcp.InFlight;
import dev.mcpgate.mcp.KeySource;
import dev.mcpgate.mcp.McpGate;
import dev.mcpgate.mcp.TenantResolver;
import dev.mcpgate.mcp.ToolPolicy;
import io.modelcontextprotocol.server.McpServerFeatures.SyncToolSpecification;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The retry rules, sync and async, against gated tools of a real server (in-memory store, piped
 * stdio): which answers are retried, always with the same key, and which end the intent.
 */
class RetryRulesTest {
  private static final RetryPolicy FAST =
      RetryPolicy.builder()
          .maxAttempts(5)
          .initialBackoff(Duration.ofMillis(20))
          .maxBackoff(Duration.ofMillis(200))
          .deadline(Duration.ofSeconds(20))
          .build();

  /** The in-memory store, whose next claims fail as an unreachable database's would. */
  static final class FlakyStore extends ForwardingIdempotencyStore {
    final AtomicInteger claimFailures = new AtomicInteger();

    FlakyStore() {
      super(InMemoryIdempotencyStore.create());
    }

    @Override
    public ClaimAttempt claim(ClaimRequest request) {
      if (claimFailures.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
        throw new IllegalStateException("connection refused (test)");
      }
      return super.claim(request);
    }
  }

  private final FlakyStore store = new FlakyStore();
  private final IdempotencyGate gate =
      IdempotencyGate.builder(store)
          .policy(GatePolicy.builder().inFlightWait(Duration.ofMillis(100)).build())
          .build();
  private final McpGate mcpGate =
      McpGate.builder(gate)
          .tenantResolver(TenantResolver.fixed("test"))
          .jsonMapper(ExactNumbers.jsonMapper())
          .build();
  private final Keys keys = new Keys();
  private final AtomicInteger runs = new AtomicInteger();
  private final CountDownLatch slowStarted = new CountDownLatch(1);
  private Connected connected;

  @AfterEach
  void close() throws Exception {
    if (connected != null) {
      connected.close();
    }
    gate.close();
  }

  private static Map<String, Object> schema(Map<String, Object> properties) {
    return Map.of("type", "object", "properties", properties);
  }

  private static final Map<String, Object> ORDER =
      schema(Map.of("order_id", Map.of("type", "string")));

  private SyncToolSpecification tool(
      String name, Map<String, Object> schema, java.util.function.Supplier<CallToolResult> body) {
    return new SyncToolSpecification(
        McpSchema.Tool.builder(name, schema).description(name).build(),
        (exchange, request) -> {
          runs.incrementAndGet();
          return body.get();
        });
  }

  private static CallToolResult ok(String text) {
    return CallToolResult.builder().addTextContent(text).build();
  }

  private Servers.Caller connect(Kind kind) throws Exception {
    return connect(kind, 0, Duration.ofSeconds(10));
  }

  private Servers.Caller connect(Kind kind, int dropsPerKey, Duration requestTimeout)
      throws Exception {
    List<SyncToolSpecification> tools =
        List.of(
            mcpGate.gate(tool("refund", ORDER, () -> ok("refunded")), ToolPolicy.defaults()),
            mcpGate.gate(
                tool("meta_only", ORDER, () -> ok("done")),
                ToolPolicy.builder().keySources(KeySource.META).build()),
            mcpGate.gate(
                tool(
                    "unknown_effect",
                    ORDER,
                    () -> {
                      throw new OutcomeUnknownException("the bank timed out (test)");
                    }),
                ToolPolicy.defaults()),
            mcpGate.gate(
                tool(
                    "slow",
                    ORDER,
                    () -> {
                      slowStarted.countDown();
                      sleep(800);
                      return ok("slow done");
                    }),
                ToolPolicy.builder().inFlight(InFlight.REFUSE).build()),
            tool(
                "ungated_with_key",
                schema(
                    Map.of(
                        "order_id", Map.of("type", "string"),
                        "idempotency_key", Map.of("type", "string"))),
                () -> ok("ungated")),
            tool("plain", ORDER, () -> ok("plain")),
            tool(
                "throws",
                ORDER,
                () -> {
                  throw new IllegalStateException("broken (test)");
                }));
    connected =
        Servers.connect(
            Wire.STDIO,
            kind,
            tools.stream().map(keys::recording).toList(),
            ExactNumbers.jsonMapper(),
            dropsPerKey,
            requestTimeout,
            FAST);
    return connected.caller();
  }

  private static void sleep(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void anUnknownOutcomeReachesTheCallerWithoutARetry(Kind kind) throws Exception {
    Servers.Caller calls = connect(kind);
    IntentKey key = IntentKey.random();

    CallOutcome outcome = calls.call(key, "unknown_effect", Map.of("order_id", "o1"));

    assertThat(outcome).isInstanceOf(CallOutcome.OutcomeUnknown.class);
    CallOutcome.OutcomeUnknown unknown = (CallOutcome.OutcomeUnknown) outcome;
    assertThat(unknown.key()).isEqualTo(key);
    assertThat(unknown.executed()).isEqualTo(Executed.UNKNOWN);
    assertThat(unknown.error().type()).isEqualTo("idempotency_outcome_unknown");
    assertThat(unknown.error().retryWithSameKey()).isFalse();
    assertThat(unknown.attempts()).isEqualTo(1);
    assertThat(keys.of("unknown_effect")).as("sent once, never again").hasSize(1);
    assertThat(runs.get()).isEqualTo(1);
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void aRetryWithSameKeyRefusalIsRetriedWithTheSameKey(Kind kind) throws Exception {
    Servers.Caller calls = connect(kind);
    store.claimFailures.set(2); // the store is unreachable for the first two attempts

    CallOutcome outcome = calls.call(IntentKey.random(), "refund", Map.of("order_id", "o2"));

    assertThat(outcome).isInstanceOf(CallOutcome.Completed.class);
    assertThat(outcome.attempts()).isEqualTo(3);
    assertThat(((CallOutcome.Completed) outcome).replayed()).isFalse();
    assertThat(keys.of("refund"))
        .as("three arrivals, one key: the one the caller got back")
        .hasSize(3)
        .allMatch(a -> a.key().equals(outcome.key().value()));
    assertThat(runs.get()).isEqualTo(1);
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void aRetryWithSameKeyRefusalThatNeverClearsIsGivenUpWithWhatIsKnown(Kind kind) throws Exception {
    Servers.Caller calls = connect(kind);
    store.claimFailures.set(100);

    CallOutcome outcome = calls.call(IntentKey.random(), "refund", Map.of("order_id", "o3"));

    assertThat(outcome).isInstanceOf(CallOutcome.GaveUp.class);
    CallOutcome.GaveUp gaveUp = (CallOutcome.GaveUp) outcome;
    assertThat(gaveUp.attempts()).isEqualTo(FAST.maxAttempts());
    assertThat(gaveUp.executed())
        .as("every attempt was answered: not executed")
        .isEqualTo(Executed.NO);
    assertThat(gaveUp.lastFailure()).isInstanceOf(AttemptFailure.AskedToRetry.class);
    assertThat(((AttemptFailure.AskedToRetry) gaveUp.lastFailure()).error().type())
        .isEqualTo("idempotency_store_unavailable");
    assertThat(keys.of("refund")).hasSize(5).allMatch(a -> a.key().equals(gaveUp.key().value()));
    assertThat(runs.get()).isZero();
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void noRetryStartsAfterTheDeadline(Kind kind) throws Exception {
    connect(kind); // the tools; the client is replaced by one with a short deadline
    store.claimFailures.set(1000);
    RetryPolicy shortDeadline =
        RetryPolicy.builder()
            .maxAttempts(1000)
            .initialBackoff(Duration.ofMillis(50))
            .maxBackoff(Duration.ofMillis(50))
            .deadline(Duration.ofMillis(400))
            .build();
    connected.close();
    connected =
        Servers.connect(
            Wire.STDIO,
            kind,
            List.of(
                keys.recording(
                    mcpGate.gate(tool("refund", ORDER, () -> ok("r")), ToolPolicy.defaults()))),
            ExactNumbers.jsonMapper(),
            0,
            Duration.ofSeconds(10),
            shortDeadline);
    long start = System.nanoTime();

    CallOutcome outcome =
        connected.caller().call(IntentKey.random(), "refund", Map.of("order_id", "o10"));

    assertThat(outcome).isInstanceOf(CallOutcome.GaveUp.class);
    assertThat(outcome.attempts()).isBetween(2, 12);
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(3));
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void aCallStillInProgressIsRetriedAfterTheServersWaitAndGetsTheFirstResult(Kind kind)
      throws Exception {
    Servers.Caller calls = connect(kind);
    IntentKey key = IntentKey.of("slow-1");
    Map<String, Object> args = Map.of("order_id", "o4");

    CompletableFuture<CallOutcome> first =
        CompletableFuture.supplyAsync(() -> calls.call(key, "slow", args));
    assertThat(slowStarted.await(10, TimeUnit.SECONDS)).isTrue();
    CallOutcome second = calls.call(key, "slow", args);

    assertThat(first.get(20, TimeUnit.SECONDS)).isInstanceOf(CallOutcome.Completed.class);
    assertThat(second).isInstanceOf(CallOutcome.Completed.class);
    assertThat(((CallOutcome.Completed) second).replayed()).isTrue();
    assertThat(second.attempts()).as("refused in progress at least once").isGreaterThan(1);
    assertThat(runs.get()).isEqualTo(1);
    assertThat(keys.of("slow")).allMatch(a -> a.key().equals("slow-1"));
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void aLostAnswerIsRetriedOnlyForAToolThatDeclaresRetriesSafe(Kind kind) throws Exception {
    Servers.Caller calls = connect(kind, 1, Duration.ofMillis(1500));

    CallOutcome gated = calls.call(IntentKey.random(), "refund", Map.of("order_id", "o11"));
    CallOutcome plain = calls.call(IntentKey.random(), "plain", Map.of("order_id", "o11"));

    assertThat(gated).isInstanceOf(CallOutcome.Completed.class);
    assertThat(((CallOutcome.Completed) gated).replayed()).isTrue();
    assertThat(plain)
        .as("an ungated tool without idempotentHint would act again: not retried")
        .isInstanceOf(CallOutcome.GaveUp.class);
    CallOutcome.GaveUp gaveUp = (CallOutcome.GaveUp) plain;
    assertThat(gaveUp.attempts()).isEqualTo(1);
    assertThat(gaveUp.executed()).isEqualTo(Executed.UNKNOWN);
    assertThat(gaveUp.lastFailure()).isInstanceOf(AttemptFailure.NoAnswer.class);
    assertThat(keys.of("plain")).hasSize(1);
    assertThat(runs.get()).as("each ran once").isEqualTo(2);
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void aRefusalThatSaysNotExecutedEndsTheIntent(Kind kind) throws Exception {
    Servers.Caller calls = connect(kind);
    IntentKey key = IntentKey.of("op-7");
    assertThat(calls.call(key, "refund", Map.of("order_id", "o5")))
        .isInstanceOf(CallOutcome.Completed.class);

    CallOutcome reused = calls.call(key, "refund", Map.of("order_id", "o6"));

    assertThat(reused).isInstanceOf(CallOutcome.Refused.class);
    CallOutcome.Refused refused = (CallOutcome.Refused) reused;
    assertThat(refused.error().type()).isEqualTo("idempotency_key_conflict");
    assertThat(refused.error().executed()).isEqualTo(Executed.NO);
    assertThat(refused.attempts()).isEqualTo(1);
    assertThat(runs.get()).isEqualTo(1);
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void aJsonRpcErrorAnswerEndsTheIntent(Kind kind) throws Exception {
    Servers.Caller calls = connect(kind);

    CallOutcome outcome = calls.call(IntentKey.random(), "throws", Map.of("order_id", "o7"));

    assertThat(outcome).isInstanceOf(CallOutcome.ErrorAnswer.class);
    assertThat(outcome.attempts()).isEqualTo(1);
    assertThat(runs.get()).isEqualTo(1);
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void theKeyGoesWhereTheToolReadsIt(Kind kind) throws Exception {
    Servers.Caller calls = connect(kind);
    IntentKey key = IntentKey.of("order-42/refund #1");

    for (String tool : List.of("refund", "meta_only", "ungated_with_key", "plain")) {
      assertThat(calls.call(key, tool, Map.of("order_id", "o8")))
          .as(tool)
          .isInstanceOf(CallOutcome.Completed.class);
    }

    assertThat(keys.of("refund").get(0).argumentKey())
        .as("a gated tool whose key_sources start with argument")
        .isEqualTo(key.value());
    assertThat(keys.of("refund").get(0).metaKey()).isNull();
    assertThat(keys.of("meta_only").get(0).metaKey())
        .as("a gated tool that reads _meta only")
        .isEqualTo(key.value());
    assertThat(keys.of("meta_only").get(0).argumentKey()).isNull();
    assertThat(keys.of("ungated_with_key").get(0).argumentKey())
        .as("a tool whose schema has the key argument")
        .isEqualTo(key.value());
    assertThat(keys.of("plain").get(0).metaKey()).as("any other tool").isEqualTo(key.value());
    assertThat(keys.of("plain").get(0).argumentKey()).isNull();
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void argumentsThatAlreadyHoldTheKeyAreTheCallersMistake(Kind kind) throws Exception {
    Servers.Caller calls = connect(kind);

    assertThatThrownBy(
            () ->
                calls.call(
                    IntentKey.random(),
                    "refund",
                    Map.of("order_id", "o9", "idempotency_key", "mine")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("idempotency_key")
        .hasMessageContaining("IntentKey.of");
    assertThat(keys.arrivals).isEmpty();
  }
}
