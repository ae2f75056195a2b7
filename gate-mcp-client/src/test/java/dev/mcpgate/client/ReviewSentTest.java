package dev.mcpgate.client;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.client.LossyStdioClientTransport.ListFailure;
import dev.mcpgate.client.LossyStdioClientTransport.ListHold;
import dev.mcpgate.core.GatePolicy;
import dev.mcpgate.core.IdempotencyGate;
import dev.mcpgate.mcp.ExactNumbers;
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
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * Review of bd8b681 (branch review-sent): a subscription of one async intent now counts the sends
 * of the others, but only when an answer to its own attempt arrives. An outcome it reaches without
 * such an answer (its listing of the tool fails, after the other subscription's attempt ran) still
 * speaks as if its own attempts were the intent's: it is told {@code ErrorAnswer}, or {@code
 * GaveUp} with {@code executed: NO}, while the intent ran.
 */
class ReviewSentTest {
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
  private final List<AutoCloseable> closers = new ArrayList<>();

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

  /** An in-process stdio server of these tools, closed after the test. */
  private LossyStdioClientTransport serve(List<SyncToolSpecification> tools) {
    Pipe toServer = new Pipe();
    Pipe toClient = new Pipe();
    McpSyncServer server =
        McpServer.sync(
                new StdioServerTransportProvider(
                    ExactNumbers.jsonMapper(), toServer.in, toClient.out))
            .jsonMapper(ExactNumbers.jsonMapper())
            .serverInfo("review-sent", "1")
            .capabilities(McpSchema.ServerCapabilities.builder().tools(true).build())
            .tools(tools)
            .build();
    closers.add(server::close);
    return new LossyStdioClientTransport(McpJsonDefaults.getMapper(), toClient.in, toServer.out, 0);
  }

  private AsyncIdempotentCalls asyncCalls(
      LossyStdioClientTransport transport, RetryPolicy policy, Scheduler scheduler) {
    McpAsyncClient client =
        McpClient.async(transport).requestTimeout(Duration.ofSeconds(5)).build();
    closers.add(0, () -> client.closeGracefully().block(Duration.ofSeconds(10)));
    client.initialize().block(Duration.ofSeconds(30));
    return AsyncIdempotentCalls.builder(client).retryPolicy(policy).scheduler(scheduler).build();
  }

  private static boolean saysNothingRan(CallOutcome o) {
    return o instanceof CallOutcome.Refused
        || o instanceof CallOutcome.ErrorAnswer
        || (o instanceof CallOutcome.GaveUp g && g.executed() == Executed.NO);
  }

  /**
   * Two subscriptions of one Mono, the tool not yet listed. The first one's {@code tools/list} is
   * held back (its thread paused); the second lists, sends first and runs the refund. The server
   * then answers the first one's listing with a JSON-RPC error (an internal error while it is
   * redeployed). That subscription never sent, never reached the compare-and-exchange, and never
   * got an answer of its own, so it never counts the other's send: the listing's JSON-RPC error
   * goes to Attempts.failed with the effect still known as NO, and it is told {@code ErrorAnswer}
   * ("a JSON-RPC error instead of a result ... when no earlier attempt of the intent lost its
   * answer") while the intent ran.
   */
  @Test
  void aSubscriptionWhoseListingFailsWithAnErrorAfterTheOtherRanIsNotToldErrorAnswer()
      throws Exception {
    LossyStdioClientTransport transport =
        serve(List.of(mcpGate().gate(tool("refund"), ToolPolicy.defaults())));
    AsyncIdempotentCalls calls = asyncCalls(transport, FAST, Schedulers.parallel());

    Mono<CallOutcome> refund = calls.call("refund", Map.of("order_id", "s1"));
    ListHold firstListing = transport.holdNextList();
    CompletableFuture<CallOutcome> first =
        refund.subscribeOn(Schedulers.boundedElastic()).toFuture();
    firstListing.awaitHeld();
    CallOutcome second = refund.block(Duration.ofSeconds(30));
    transport.failLists(ListFailure.JSON_RPC_ERROR);
    firstListing.release();
    CallOutcome outcome = first.get(30, TimeUnit.SECONDS);

    assertThat(second).isInstanceOf(CallOutcome.Completed.class);
    assertThat(runs.get()).as("the intent ran once").isEqualTo(1);
    assertThat(outcome)
        .as("the other subscription's attempt ran: not told nothing ran")
        .matches(o -> !saysNothingRan(o), "does not say nothing ran");
  }

  /**
   * The same, with the caller dropping the cached tool definitions ({@code forgetTools()}, after a
   * redeploy notice) and the connection broken after the second subscription's refund ran: every
   * listing of the first one fails without an answer, so it never reaches the compare-and-exchange
   * that would have told it of the other's send, and it gives up after the policy's attempts with
   * {@code executed: NO} ("NO only when every attempt was answered 'did not take effect'") while
   * the intent ran. A caller told NO may send the intent again under a new key.
   */
  @Test
  void aSubscriptionThatGivesUpListingAfterTheOtherRanDoesNotSayNo() throws Exception {
    LossyStdioClientTransport transport =
        serve(List.of(mcpGate().gate(tool("refund"), ToolPolicy.defaults())));
    AsyncIdempotentCalls calls = asyncCalls(transport, FAST, Schedulers.parallel());

    Mono<CallOutcome> refund = calls.call("refund", Map.of("order_id", "s2"));
    ListHold firstListing = transport.holdNextList();
    CompletableFuture<CallOutcome> first =
        refund.subscribeOn(Schedulers.boundedElastic()).toFuture();
    firstListing.awaitHeld();
    CallOutcome second = refund.block(Duration.ofSeconds(30));
    calls.forgetTools();
    transport.failLists(ListFailure.IO_ERROR);
    firstListing.release();
    CallOutcome outcome = first.get(30, TimeUnit.SECONDS);

    assertThat(second).isInstanceOf(CallOutcome.Completed.class);
    assertThat(runs.get()).as("the intent ran once").isEqualTo(1);
    assertThat(outcome)
        .as("the other subscription's attempt ran: not told nothing ran")
        .matches(o -> !saysNothingRan(o), "does not say nothing ran");
  }

  /**
   * A subscription that did send: its attempt is refused with {@code retry_with_same_key} (the
   * store is unreachable; executed "no"), and its count check at that answer finds no other send.
   * While it waits to retry, the other subscription lists, sends and runs the refund. The caller
   * then drops the cached tool definitions ({@code forgetTools()}, after a redeploy notice) and the
   * connection breaks for listings: the first subscription's retries fail at the listing, never
   * sending, never answered, and it gives up with {@code executed: NO} though the intent ran.
   */
  @Test
  void aSubscriptionThatSentAndThenGivesUpListingAfterTheOtherRanDoesNotSayNo() throws Exception {
    LossyStdioClientTransport transport =
        serve(List.of(mcpGate().gate(tool("refund"), ToolPolicy.defaults())));
    HoldFirstWait waits = new HoldFirstWait();
    AsyncIdempotentCalls calls = asyncCalls(transport, FAST, waits);
    calls.call("refund", Map.of("order_id", "warm-up")).block(Duration.ofSeconds(30));
    runs.set(0);

    Mono<CallOutcome> refund = calls.call("refund", Map.of("order_id", "s3"));
    store.claimFailures.set(1); // the first attempt: retry_with_same_key, executed "no"
    CompletableFuture<CallOutcome> first =
        refund.subscribeOn(Schedulers.boundedElastic()).toFuture();
    assertThat(waits.held.await(30, TimeUnit.SECONDS)).as("the first waits to retry").isTrue();
    assertThat(store.claimFailures.get()).as("its attempt was refused: store unreachable").isZero();
    CallOutcome second = refund.block(Duration.ofSeconds(30));
    calls.forgetTools();
    transport.failLists(ListFailure.IO_ERROR);
    waits.release();
    CallOutcome outcome = first.get(30, TimeUnit.SECONDS);

    assertThat(second).isInstanceOf(CallOutcome.Completed.class);
    assertThat(runs.get()).as("the intent ran once").isEqualTo(1);
    assertThat(outcome)
        .as("the other subscription's attempt ran: not told nothing ran")
        .matches(o -> !saysNothingRan(o), "does not say nothing ran");
  }

  /**
   * Not from bd8b681 (found while reading the wait path): the caller's scheduler is disposed while
   * a wait before a retry is pending on it (the application shuts its pools down between two
   * attempts). The docs say that when the scheduler refuses the wait (it was disposed) the intent
   * ends as {@code GaveUp} with what is known; but a wait already scheduled is dropped by the
   * disposal, never run and never failed, so the Mono never ends: the caller waits forever and
   * never learns the key's state.
   *
   * <p>Not fixed: a Reactor scheduler tells no one of the tasks its disposal drops, and timing the
   * waits anywhere else would take them off the caller's scheduler (virtual time in tests, the
   * caller's threads). The docs (client.md, the builder's {@code scheduler}) now say so; this test
   * asserts the limit, so it fails when the behaviour changes and the docs must follow.
   */
  @Test
  void aSchedulerDisposedDuringAWaitDropsTheWait_aKnownLimit() throws Exception {
    LossyStdioClientTransport transport =
        serve(List.of(mcpGate().gate(tool("refund"), ToolPolicy.defaults())));
    CountDownLatch waiting = new CountDownLatch(1);
    Scheduler single = Schedulers.newSingle("review-sent-waits");
    closers.add(single::dispose);
    Scheduler waits =
        new Scheduler() {
          @Override
          public Disposable schedule(Runnable task) {
            return single.schedule(task);
          }

          @Override
          public Disposable schedule(Runnable task, long delay, TimeUnit unit) {
            Disposable d = single.schedule(task, delay, unit);
            waiting.countDown();
            return d;
          }

          @Override
          public Worker createWorker() {
            return single.createWorker();
          }

          @Override
          public void dispose() {
            single.dispose();
          }
        };
    RetryPolicy slow =
        RetryPolicy.builder()
            .maxAttempts(5)
            .initialBackoff(Duration.ofSeconds(2))
            .maxBackoff(Duration.ofSeconds(2))
            .deadline(Duration.ofSeconds(20))
            .build();
    AsyncIdempotentCalls calls = asyncCalls(transport, slow, waits);
    store.claimFailures.set(1); // the first attempt: retry_with_same_key, executed "no"

    CompletableFuture<CallOutcome> outcome =
        calls.call("refund", Map.of("order_id", "s4")).toFuture();
    assertThat(waiting.await(30, TimeUnit.SECONDS)).as("a wait before a retry").isTrue();
    assertThat(store.claimFailures.get()).as("its attempt was refused: store unreachable").isZero();
    waits.dispose(); // the application shuts down between two attempts

    CallOutcome ended = null;
    try {
      ended = outcome.get(4, TimeUnit.SECONDS);
    } catch (java.util.concurrent.TimeoutException e) {
      // the limit: no outcome
    }
    assertThat(ended)
        .as("no outcome within 4 s of a 2 s wait whose scheduler was disposed (the known limit)")
        .isNull();
    assertThat(runs.get()).as("and nothing ran after the disposal").isZero();
  }

  /** Times the waits between attempts; holds the first timed wait until released. */
  private static final class HoldFirstWait implements Scheduler {
    private final Scheduler delegate = Schedulers.parallel();
    private final AtomicBoolean first = new AtomicBoolean(true);
    final CountDownLatch held = new CountDownLatch(1);
    private final CountDownLatch released = new CountDownLatch(1);

    void release() {
      released.countDown();
    }

    @Override
    public Disposable schedule(Runnable task) {
      return delegate.schedule(task);
    }

    @Override
    public Disposable schedule(Runnable task, long delay, TimeUnit unit) {
      if (first.compareAndSet(true, false)) {
        held.countDown();
        return Schedulers.boundedElastic()
            .schedule(
                () -> {
                  try {
                    if (released.await(30, TimeUnit.SECONDS)) {
                      task.run();
                    }
                  } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                  }
                });
      }
      return delegate.schedule(task, delay, unit);
    }

    @Override
    public Worker createWorker() {
      return delegate.createWorker();
    }
  }
}
