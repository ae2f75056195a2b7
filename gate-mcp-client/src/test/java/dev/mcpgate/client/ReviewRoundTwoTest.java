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
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * Second adversarial review of gate-mcp-client (branch review-client, after 17c6c46): each test
 * shows an intent that runs twice, or a caller told something untrue. All fail on main at 17c6c46.
 */
class ReviewRoundTwoTest {
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

  /** order_id may be null: a natural key field the caller does not always have. */
  private static final Map<String, Object> NULLABLE_ORDER =
      Map.of(
          "type",
          "object",
          "properties",
          Map.of("order_id", Map.of("type", List.of("string", "null"))));

  private SyncToolSpecification tool(String name, long sleepMs) {
    return tool(name, ORDER, sleepMs);
  }

  private SyncToolSpecification tool(String name, Map<String, Object> schema, long sleepMs) {
    return new SyncToolSpecification(
        McpSchema.Tool.builder(name, schema).description(name).build(),
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

  /** A gate whose policy refuses (executed "no") every call under a key after the first. */
  private McpGate oneCallPerKey() {
    Set<String> seen = ConcurrentHashMap.newKeySet();
    return mcpGate(
        (tenant, context, request) ->
            seen.add(String.valueOf(Keys.of(request))) ? null : "quota: one call per key (test)");
  }

  /** An in-process stdio server ({@link #server}) of these tools, closed after the test. */
  private LossyStdioClientTransport serve(List<SyncToolSpecification> tools, int drops) {
    Pipe toServer = new Pipe();
    Pipe toClient = new Pipe();
    server =
        McpServer.sync(
                new StdioServerTransportProvider(
                    ExactNumbers.jsonMapper(), toServer.in, toClient.out))
            .jsonMapper(ExactNumbers.jsonMapper())
            .serverInfo("review-2", "1")
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
    return caller(kind, transport, timeout, FAST);
  }

  private Servers.Caller caller(
      Kind kind,
      io.modelcontextprotocol.spec.McpClientTransport transport,
      Duration timeout,
      RetryPolicy policy) {
    if (kind == Kind.SYNC) {
      McpSyncClient client = McpClient.sync(transport).requestTimeout(timeout).build();
      closers.add(0, client::close);
      client.initialize();
      return IdempotentCalls.builder(client).retryPolicy(policy).build()::call;
    }
    AsyncIdempotentCalls calls = asyncCalls(transport, timeout, policy);
    return (key, tool, args) -> calls.call(key, tool, args).block(Duration.ofSeconds(60));
  }

  private AsyncIdempotentCalls asyncCalls(
      io.modelcontextprotocol.spec.McpClientTransport transport, Duration timeout) {
    return asyncCalls(transport, timeout, FAST);
  }

  private AsyncIdempotentCalls asyncCalls(
      io.modelcontextprotocol.spec.McpClientTransport transport,
      Duration timeout,
      RetryPolicy policy) {
    McpAsyncClient client = McpClient.async(transport).requestTimeout(timeout).build();
    closers.add(0, () -> client.closeGracefully().block(Duration.ofSeconds(10)));
    client.initialize().block(Duration.ofSeconds(30));
    return AsyncIdempotentCalls.builder(client).retryPolicy(policy).build();
  }

  /**
   * A natural-key tool (required false) called with its natural-key argument present but null: the
   * client counts the argument as held (arguments.keySet().containsAll) and deems a retry safe; the
   * server's KeyExtractor treats a null value as no natural key and runs the call ungated. The
   * first answer is lost, the client retries, and the refund runs twice.
   */
  @ParameterizedTest
  @EnumSource(Kind.class)
  void aNaturalKeyArgumentThatIsNullIsNotAKeyTheServerReads(Kind kind) throws Exception {
    McpGate mcp = mcpGate(null);
    LossyStdioClientTransport transport =
        serve(
            List.of(
                mcp.gate(
                    tool("refund_natural", NULLABLE_ORDER, 0),
                    ToolPolicy.builder()
                        .keySources(KeySource.NATURAL)
                        .naturalKey("order_id")
                        .required(false)
                        .build())),
            1);
    Servers.Caller caller = caller(kind, transport, Duration.ofMillis(1500));
    Map<String, Object> args = new HashMap<>();
    args.put("order_id", null);
    args.put("amount_cents", 5);

    CallOutcome outcome = caller.call(IntentKey.random(), "refund_natural", args);

    assertThat(runs.get()).as("one intent, outcome " + outcome).isEqualTo(1);
  }

  /** A redeploy between two attempts of one intent: the tool's key sources before and after. */
  enum Redeploy {
    DEFAULT_TO_NATURAL_ONLY(ToolPolicy.defaults(), naturalKey(KeySource.NATURAL)),
    /** Found in a later review: a natural key read first gates a call that holds it under it. */
    NATURAL_FIRST_TO_DEFAULT(
        naturalKey(KeySource.NATURAL, KeySource.ARGUMENT), ToolPolicy.defaults()),
    DEFAULT_TO_NATURAL_FIRST(
        ToolPolicy.defaults(), naturalKey(KeySource.NATURAL, KeySource.ARGUMENT));

    final ToolPolicy before;
    final ToolPolicy after;

    Redeploy(ToolPolicy before, ToolPolicy after) {
      this.before = before;
      this.after = after;
    }

    private static ToolPolicy naturalKey(KeySource... sources) {
      return ToolPolicy.builder().keySources(sources).naturalKey("order_id").build();
    }
  }

  static java.util.stream.Stream<org.junit.jupiter.params.provider.Arguments> redeploys() {
    return java.util.Arrays.stream(Kind.values())
        .flatMap(
            k ->
                java.util.Arrays.stream(Redeploy.values())
                    .map(r -> org.junit.jupiter.params.provider.Arguments.of(k, r)));
  }

  /**
   * The tool is redeployed while the first attempt's answer is lost: its key source changes from
   * the key argument (or _meta) to a natural key. The listing before the retry says the tool is
   * still retry-safe (idempotentHint, the call holds its natural key), so the client retries; but
   * the server now reads another key (the natural key, not the intent key the first attempt was
   * claimed under), so the retry is a new claim and the refund runs twice. The listing checks that
   * the tool is retry-safe now, not that it reads the key the earlier attempts were sent under. The
   * same holds for a natural key moved before or after the intent key: a call holding it is gated
   * under the natural key wherever that comes first.
   */
  @ParameterizedTest
  @org.junit.jupiter.params.provider.MethodSource("redeploys")
  void aRetryAfterTheToolsKeySourceChangedIsNotARetryOfTheSameClaim(Kind kind, Redeploy redeploy)
      throws Exception {
    McpGate mcp = mcpGate(null);
    SyncToolSpecification before = mcp.gate(tool("refund", 0), redeploy.before);
    SyncToolSpecification after = mcp.gate(tool("refund", 0), redeploy.after);
    LossyStdioClientTransport transport = serve(List.of(before), 1);
    Servers.Caller caller = caller(kind, transport, Duration.ofMillis(1500));
    // the redeploy, while the client waits for the first (lost) answer
    Thread redeploying =
        new Thread(
            () -> {
              while (runs.get() == 0) {
                Thread.onSpinWait();
              }
              server.removeTool("refund");
              server.addTool(after);
            });
    redeploying.start();

    CallOutcome outcome = caller.call(IntentKey.random(), "refund", Map.of("order_id", "o1"));
    redeploying.join(10_000);

    assertThat(runs.get()).as("one intent, outcome " + outcome).isEqualTo(1);
    assertThat(outcome)
        .isInstanceOfSatisfying(
            CallOutcome.GaveUp.class, g -> assertThat(g.executed()).isEqualTo(Executed.UNKNOWN));
  }

  /**
   * Two subscriptions of one Mono at once (Mono.zip(m, m), a Mono handed to two consumers): both
   * build their Attempts before either sent, so the second sees sent == true at getAndSet but keeps
   * known == NO and refreshDue == false. It sends too (the tool is retry-safe), and its attempt is
   * refused with executed "no" (a per-key quota, as in ReviewFindingsTest finding 1). That
   * subscription is told Refused ("nothing of this intent ran; a new request needs a new key")
   * while the other subscription's attempt of the same intent ran.
   */
  @Test
  void aConcurrentSubscriptionIsNotToldRefusedWhileTheOtherOnesAttemptRan() throws Exception {
    McpGate mcp = oneCallPerKey();
    AsyncIdempotentCalls calls =
        asyncCalls(
            serve(List.of(mcp.gate(tool("refund", 400), ToolPolicy.defaults())), 0),
            Duration.ofSeconds(10));

    Mono<CallOutcome> refund = calls.call("refund", Map.of("order_id", "z1"));
    var both =
        Mono.zip(
                refund.subscribeOn(Schedulers.boundedElastic()),
                refund.subscribeOn(Schedulers.boundedElastic()))
            .block(Duration.ofSeconds(30));

    assertThat(runs.get()).as("the intent ran once").isEqualTo(1);
    assertThat(List.of(both.getT1(), both.getT2()))
        .as("no subscription is told the intent did not run")
        .noneMatch(o -> o instanceof CallOutcome.Refused);
  }

  /**
   * The same race, the other way round: the subscription that sent first is paused before its
   * request leaves (a busy machine), the other one finds it sent, lists the tool again and sends;
   * its request overtakes the first and runs, and the first is then refused with executed "no" (the
   * per-key quota). That refusal speaks for its own request only: the intent ran, so the first
   * subscription must not be told Refused. Found as a CI failure of the test above.
   */
  @Test
  void theFirstSendersRefusalAfterTheOtherRanIsNotRefused() throws Exception {
    McpGate mcp = oneCallPerKey();
    LossyStdioClientTransport transport =
        serve(List.of(mcp.gate(tool("refund", 0), ToolPolicy.defaults())), 0);
    AsyncIdempotentCalls calls = asyncCalls(transport, Duration.ofSeconds(10));
    calls.call("refund", Map.of("order_id", "warm-up")).block(Duration.ofSeconds(30));
    runs.set(0);
    transport.delayNextCall(1_500);

    Mono<CallOutcome> refund = calls.call("refund", Map.of("order_id", "z2"));
    var both =
        Mono.zip(
                refund.subscribeOn(Schedulers.boundedElastic()),
                refund.subscribeOn(Schedulers.boundedElastic()))
            .block(Duration.ofSeconds(30));

    assertThat(runs.get()).as("the intent ran once").isEqualTo(1);
    assertThat(List.of(both.getT1(), both.getT2()))
        .as("no subscription is told the intent did not run")
        .noneMatch(o -> o instanceof CallOutcome.Refused)
        .anyMatch(o -> o instanceof CallOutcome.Completed);
  }

  /**
   * The ran-twice form of the concurrent-subscription finding: the second subscription, which finds
   * at getAndSet that the other one already sent, sends again under the placement it read from the
   * cache, without listing the tool again as every other retry does. A tool redeployed ungated (no
   * idempotentHint) behind the cached gated definition (as in
   * ReviewFixesTest.theAsyncClientListsTheToolAgainBeforeARetry) then runs twice for one intent.
   */
  @Test
  void aConcurrentSubscriptionListsTheToolAgainBeforeSendingItAgain() throws Exception {
    McpGate mcp = mcpGate(null);
    SyncToolSpecification gated = mcp.gate(tool("refund", 0), ToolPolicy.defaults());
    AtomicInteger ungatedRuns = new AtomicInteger();
    SyncToolSpecification ungated = // no gate, no idempotentHint
        new SyncToolSpecification(
            McpSchema.Tool.builder("refund", ORDER).description("refund").build(),
            (exchange, request) -> {
              ungatedRuns.incrementAndGet();
              return CallToolResult.builder().addTextContent("refunded").build();
            });
    AsyncIdempotentCalls calls =
        asyncCalls(
            serve(List.of(gated, mcp.gate(tool("other", 0), ToolPolicy.defaults())), 0),
            Duration.ofSeconds(10));

    // the race: both subscriptions build their Attempts before either reaches sent.getAndSet;
    // released together by a barrier, they do within a few intents
    int intents = 30;
    List<String> outcomes = new ArrayList<>();
    for (int i = 0; i < intents; i++) {
      // the client caches refund's gated definition; then refund is redeployed ungated, unsaid
      server.removeTool("refund");
      server.addTool(gated);
      calls.forgetTools();
      calls.call("other", Map.of("order_id", "x" + i)).block(Duration.ofSeconds(15));
      server.removeTool("refund");
      server.addTool(ungated);

      // many arguments: building each attempt's request (a copy of them) takes a while, which
      // widens the window between a subscription's start and its sent.getAndSet
      Map<String, Object> args = new HashMap<>();
      args.put("order_id", "c" + i);
      for (int n = 0; n < 20_000; n++) {
        args.put("note_" + n, n);
      }
      Mono<CallOutcome> refund = calls.call("refund", args);
      java.util.concurrent.CyclicBarrier together = new java.util.concurrent.CyclicBarrier(2);
      Mono<CallOutcome> released =
          Mono.fromCallable(together::await).subscribeOn(Schedulers.boundedElastic()).then(refund);
      var both = Mono.zip(released, released).block(Duration.ofSeconds(30));
      outcomes.add(
          both.getT1().getClass().getSimpleName() + "/" + both.getT2().getClass().getSimpleName());
    }

    assertThat(ungatedRuns.get()).as("one run per intent, outcomes " + outcomes).isEqualTo(intents);
  }

  /**
   * A server whose tools/list pagination cycles (every page says nextCursor "again": a paging bug,
   * or a cursor the server cannot resume and restarts from). The client follows nextCursor with no
   * bound, no cycle check and no deadline, so the listing before the retry never ends: the first
   * attempt ran and its answer was lost, and the call never returns an outcome (the caller, who did
   * not choose the key, never learns it). The first listing is sound here; the cycle starts after
   * the first tools/call.
   */
  @ParameterizedTest
  @EnumSource(Kind.class)
  void aListingWhosePagesCycleStillEndsTheIntentInAnOutcome(Kind kind) throws Exception {
    McpGate mcp = mcpGate(null);
    CursorCycle transport =
        new CursorCycle(serve(List.of(mcp.gate(tool("refund", 0), ToolPolicy.defaults())), 1));
    RetryPolicy deadline3s =
        RetryPolicy.builder()
            .initialBackoff(Duration.ofMillis(20))
            .maxBackoff(Duration.ofMillis(200))
            .deadline(Duration.ofSeconds(3))
            .build();
    Servers.Caller caller = caller(kind, transport, Duration.ofMillis(1000), deadline3s);
    java.util.concurrent.CompletableFuture<CallOutcome> outcome =
        java.util.concurrent.CompletableFuture.supplyAsync(
            () -> caller.call(IntentKey.random(), "refund", Map.of("order_id", "p1")));

    CallOutcome got = null;
    try {
      got = outcome.get(10, java.util.concurrent.TimeUnit.SECONDS); // the deadline is 3 s
    } catch (java.util.concurrent.TimeoutException e) {
      // no outcome
    }
    assertThat(runs.get()).as("the first attempt ran").isEqualTo(1);
    assertThat(got)
        .as("an outcome within 10 s; tools/list pages requested: " + transport.pages.get())
        .isNotNull();
  }

  /**
   * The caller's scheduler (AsyncIdempotentCalls.Builder.scheduler) is disposed while an attempt is
   * in flight (an application shutting down its pools). The attempt ran and its answer was lost;
   * the wait before the retry, Mono.delay on that scheduler, fails with RejectedExecutionException,
   * which nothing catches after the attempt was sent: the Mono fails instead of ending in GaveUp
   * UNKNOWN, and a caller who did not choose the key loses it.
   */
  @Test
  void aRejectedWaitAfterASentAttemptStillEndsInAnOutcome() throws Exception {
    McpGate mcp = mcpGate(null);
    reactor.core.scheduler.Scheduler waits = Schedulers.newSingle("review-waits");
    closers.add(waits::dispose);
    SyncToolSpecification gated = mcp.gate(tool("refund", 0), ToolPolicy.defaults());
    SyncToolSpecification disposing =
        new SyncToolSpecification(
            gated.tool(),
            (exchange, request) -> {
              waits.dispose(); // the application shuts down while the refund runs
              return gated.callHandler().apply(exchange, request);
            });
    LossyStdioClientTransport transport = serve(List.of(disposing), 1);
    McpAsyncClient client =
        McpClient.async(transport).requestTimeout(Duration.ofMillis(1000)).build();
    closers.add(0, () -> client.closeGracefully().block(Duration.ofSeconds(10)));
    client.initialize().block(Duration.ofSeconds(30));
    AsyncIdempotentCalls calls =
        AsyncIdempotentCalls.builder(client).retryPolicy(FAST).scheduler(waits).build();

    Mono<CallOutcome> refund = calls.call("refund", Map.of("order_id", "s1"));

    assertThat(
            refund.map(Object.class::cast).onErrorResume(Mono::just).block(Duration.ofSeconds(15)))
        .as("ran " + runs.get() + " time(s)")
        .isInstanceOf(CallOutcome.class);
  }

  /**
   * The documented way on after GaveUp UNKNOWN: "call again with that key later". The later call's
   * first attempt is refused with executed "no" (the caller's token expired meanwhile: the
   * CallAuthorizer refuses before anything is claimed, so "no" speaks only for that attempt). The
   * client cannot know what the caller's earlier calls under a key it gave did, so the later call
   * is Refused for itself only (CallOutcome's and Refused's docs say so), and nothing runs again.
   */
  @ParameterizedTest
  @EnumSource(Kind.class)
  void aLaterCallUnderAGivenKeyIsToldOnlyOfItself(Kind kind) throws Exception {
    java.util.concurrent.atomic.AtomicBoolean expired =
        new java.util.concurrent.atomic.AtomicBoolean();
    McpGate mcp =
        mcpGate((tenant, context, request) -> expired.get() ? "token expired (test)" : null);
    LossyStdioClientTransport transport =
        serve(List.of(mcp.gate(tool("refund", 0), ToolPolicy.defaults())), 1);
    RetryPolicy once =
        RetryPolicy.builder().maxAttempts(1).deadline(Duration.ofSeconds(20)).build();
    Servers.Caller caller = caller(kind, transport, Duration.ofMillis(1000), once);
    IntentKey key = IntentKey.of("refund-op-42");

    CallOutcome first = caller.call(key, "refund", Map.of("order_id", "k1"));
    assertThat(first).isInstanceOf(CallOutcome.GaveUp.class);
    assertThat(((CallOutcome.GaveUp) first).executed()).isEqualTo(Executed.UNKNOWN);
    expired.set(true);

    CallOutcome later = caller.call(key, "refund", Map.of("order_id", "k1"));

    assertThat(runs.get()).as("the intent ran, in the first call, and not again").isEqualTo(1);
    assertThat(later).as("refused for itself").isInstanceOf(CallOutcome.Refused.class);
    CallOutcome.Refused refused = (CallOutcome.Refused) later;
    assertThat(refused.key()).isEqualTo(key);
    assertThat(refused.attempts()).isEqualTo(1);
    assertThat(refused.error().executed())
        .as("what the server said of this call")
        .isEqualTo(Executed.NO);
  }

  /** Rewrites every tools/list answer after the first tools/call to say nextCursor "again". */
  private static final class CursorCycle
      implements io.modelcontextprotocol.spec.McpClientTransport {
    private final LossyStdioClientTransport delegate;
    private final Set<Object> listings = ConcurrentHashMap.newKeySet();
    private final java.util.concurrent.atomic.AtomicBoolean called =
        new java.util.concurrent.atomic.AtomicBoolean();
    final AtomicInteger pages = new AtomicInteger();

    CursorCycle(LossyStdioClientTransport delegate) {
      this.delegate = delegate;
    }

    @Override
    public Mono<Void> connect(
        java.util.function.Function<Mono<McpSchema.JSONRPCMessage>, Mono<McpSchema.JSONRPCMessage>>
            handler) {
      return delegate.connect(in -> handler.apply(in.map(this::rewrite)));
    }

    private McpSchema.JSONRPCMessage rewrite(McpSchema.JSONRPCMessage message) {
      if (message instanceof McpSchema.JSONRPCResponse r
          && listings.remove(r.id())
          && called.get()
          && r.result() instanceof Map<?, ?> result) {
        Map<Object, Object> cycled = new java.util.LinkedHashMap<>(result);
        cycled.put("nextCursor", "again");
        return new McpSchema.JSONRPCResponse(r.jsonrpc(), r.id(), cycled, r.error());
      }
      return message;
    }

    @Override
    public Mono<Void> sendMessage(McpSchema.JSONRPCMessage message) {
      if (message instanceof McpSchema.JSONRPCRequest request) {
        if (McpSchema.METHOD_TOOLS_LIST.equals(request.method())) {
          listings.add(request.id());
          pages.incrementAndGet();
        } else if (McpSchema.METHOD_TOOLS_CALL.equals(request.method())) {
          called.set(true);
        }
      }
      return delegate.sendMessage(message);
    }

    @Override
    public Mono<Void> closeGracefully() {
      return delegate.closeGracefully();
    }

    @Override
    public <T> T unmarshalFrom(Object data, io.modelcontextprotocol.json.TypeRef<T> type) {
      return delegate.unmarshalFrom(data, type);
    }
  }
}
