package dev.mcpgate.client;

import static java.util.Objects.requireNonNull;

import io.modelcontextprotocol.client.McpAsyncClient;
import io.modelcontextprotocol.spec.McpSchema;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * Calls the tools of an MCP server through an SDK {@link McpAsyncClient} at most once per intent:
 * the same rules as {@link IdempotentCalls} (one key per intent, where the tool reads it; lost
 * answers and {@code retry_with_same_key} refusals retried under that key with back-off; {@code
 * executed: unknown} handed to the caller), without blocking.
 *
 * <pre>{@code
 * AsyncIdempotentCalls calls = AsyncIdempotentCalls.builder(asyncClient).build();
 * Mono<CallOutcome> refund =
 *     calls.call("refund_order", Map.of("order_id", "ord_9f2", "amount_cents", 1250));
 * }</pre>
 *
 * <p>Nothing is sent until the returned {@link Mono} is subscribed; each subscription is the same
 * intent (the same key), so resubscribing retries it, never starts a new one. The subscriptions of
 * one returned {@code Mono} share what was sent: once an attempt was sent, a resubscription (or a
 * concurrent subscription that finds it sent) counts it as a lost answer (the effect is then not
 * known to be NO, and it lists the tool's definition again before sending), and a tool that is not
 * retry-safe is not sent again: that subscription ends as {@link CallOutcome.GaveUp} with {@link
 * Executed#UNKNOWN}. A subscription whose attempt was sent beside another subscription's reads its
 * answer as speaking for its own attempt only (the other may have run): a refusal then ends it as
 * {@code GaveUp}, never {@link CallOutcome.Refused}. Cancelling stops the retries; an attempt
 * already sent may still run on the server.
 */
public final class AsyncIdempotentCalls {
  private final McpAsyncClient client;
  private final RetryPolicy policy;
  private final Scheduler scheduler;
  private final ToolKeys keys;

  private AsyncIdempotentCalls(Builder b) {
    this.client = b.client;
    this.policy = b.policy;
    this.scheduler = b.scheduler;
    this.keys = new ToolKeys(b.keyArgument);
  }

  /**
   * @param client an SDK client; initialized by the first call if it is not yet
   * @return a builder with the default {@link RetryPolicy}, waiting on Reactor's parallel scheduler
   * @throws NullPointerException if {@code client} is null
   */
  public static Builder builder(McpAsyncClient client) {
    return new Builder(requireNonNull(client, "client must not be null"));
  }

  /**
   * Calls the tool as a new intent, under a new random key (chosen now, not at subscription).
   *
   * @param tool the tool's name
   * @param arguments the tool's arguments, without a key
   * @return how the intent ends; it fails only with an {@link IllegalArgumentException} when the
   *     arguments already hold the tool's key argument
   * @throws NullPointerException if {@code tool} or {@code arguments} is null
   */
  public Mono<CallOutcome> call(String tool, Map<String, ?> arguments) {
    return call(IntentKey.random(), tool, arguments);
  }

  /**
   * Calls the tool as the intent that {@code key} names (the caller's own operation id, or the key
   * of an earlier outcome).
   *
   * @param key the intent's key, sent with every attempt
   * @param tool the tool's name
   * @param arguments the tool's arguments, without a key
   * @return how the intent ends; it fails only with an {@link IllegalArgumentException} when the
   *     arguments already hold the tool's key argument
   * @throws NullPointerException if an argument is null
   */
  public Mono<CallOutcome> call(IntentKey key, String tool, Map<String, ?> arguments) {
    requireNonNull(key, "key must not be null");
    requireNonNull(tool, "tool must not be null");
    requireNonNull(arguments, "arguments must not be null");
    Map<String, ?> args = ArgumentSnapshot.of(arguments);
    Sent sent = new Sent();
    return Mono.defer(
        () ->
            attempt(
                new Attempts(policy, key, tool, sent.first.get(), sent.count::get),
                tool,
                args,
                sent));
  }

  /** Drops the cached tool definitions: the next call lists the server's tools again. */
  public void forgetTools() {
    keys.clear();
  }

  private Mono<CallOutcome> attempt(
      Attempts attempts, String tool, Map<String, ?> args, Sent sent) {
    return Mono.defer(
        () -> {
          boolean refresh = attempts.refreshDue();
          return (refresh ? refresh(tool) : placement(tool))
              .onErrorMap(ListingFailed::new)
              .flatMap(placement -> send(attempts, placement, refresh, tool, args, sent))
              .onErrorResume(
                  ListingFailed.class,
                  e -> {
                    attempts.begin();
                    // after a lost answer the effect stays unknown: a failed listing never makes
                    // it NO
                    return Mono.just(attempts.failed(e.getCause(), false, true));
                  })
              .flatMap(
                  next ->
                      next instanceof Attempts.Stop stop
                          ? Mono.just(stop.outcome())
                          : Mono.delay(((Attempts.Retry) next).delay(), scheduler)
                              .onErrorMap(WaitFailed::new)
                              .then(attempt(attempts, tool, args, sent))
                              .onErrorResume(
                                  WaitFailed.class,
                                  e -> Mono.just(attempts.waitFailed(e.getCause()))));
        });
  }

  private Mono<Attempts.Next> send(
      Attempts attempts,
      KeyPlacement placement,
      boolean refresh,
      String tool,
      Map<String, ?> args,
      Sent sent) {
    return Mono.defer(
            () -> {
              boolean retrySafe = placement.retrySafe(args);
              if (refresh) {
                Attempts.Next stale = attempts.refreshed(retrySafe);
                if (stale != null) {
                  return Mono.just(stale);
                }
              }
              Attempts.Next changed = attempts.claim(placement, args);
              if (changed != null) {
                return Mono.just(changed);
              }
              McpSchema.CallToolRequest request = placement.request(tool, args, attempts.key());
              KeyPlacement sentBefore = sent.first.compareAndExchange(null, placement);
              if (sentBefore != null && !attempts.anySent()) {
                // a concurrent subscription sent it: for this one, a lost answer
                if (!retrySafe) {
                  // it must not send it again
                  return Mono.just(new Attempts.Stop(attempts.sentByAnEarlierRun()));
                }
                // the effect is now unknown; list the tool again before sending it again
                return Mono.just(attempts.sentByAnotherRun(sentBefore));
              }
              attempts.begin();
              attempts.sending(placement);
              sent.count.incrementAndGet();
              return client
                  .callTool(request)
                  .map(attempts::answered)
                  .onErrorResume(e -> Mono.just(attempts.failed(e, true, retrySafe)));
            })
        .onErrorResume(
            e -> attempts.anySent(),
            e ->
                Mono.just(
                    new Attempts.Stop(
                        attempts.internalFailure(
                            e instanceof RuntimeException r ? r : new IllegalStateException(e)))));
  }

  /** What the subscriptions of one intent share: what they sent. */
  private static final class Sent {
    /** The placement the first attempt sent by any subscription was sent under. */
    final AtomicReference<KeyPlacement> first = new AtomicReference<>();

    /**
     * How many attempts all subscriptions sent: each decides its outcome knowing whether others
     * sent (their attempts may have overtaken its own and run).
     */
    final AtomicInteger count = new AtomicInteger();
  }

  /** A failure to list the server's tools, told apart from the attempt's own failures. */
  private static final class ListingFailed extends RuntimeException {
    private static final long serialVersionUID = 1L;

    ListingFailed(Throwable cause) {
      super(cause);
    }
  }

  /** A failure of the wait before a retry (a disposed scheduler), told apart from the retry's. */
  private static final class WaitFailed extends RuntimeException {
    private static final long serialVersionUID = 1L;

    WaitFailed(Throwable cause) {
      super(cause);
    }
  }

  private Mono<KeyPlacement> placement(String tool) {
    KeyPlacement cached = keys.cached(tool);
    if (cached != null) {
      return Mono.just(cached);
    }
    return refresh(tool);
  }

  /** Lists the server's tools again, bypassing the cache (before a retry after a lost answer). */
  private Mono<KeyPlacement> refresh(String tool) {
    return Mono.defer(
        () -> {
          ToolKeys.Pages cursors = new ToolKeys.Pages();
          // the first page only: listTools() follows every cursor itself, without bound
          return client
              .listTools(McpSchema.FIRST_PAGE)
              .expand(
                  page -> {
                    String cursor;
                    try {
                      cursor = cursors.next(page);
                    } catch (ToolKeys.ListingDidNotEnd e) {
                      return Mono.error(e);
                    }
                    return cursor == null ? Mono.empty() : client.listTools(cursor);
                  })
              .collectList()
              .map(pages -> keys.relisted(tool, pages));
        });
  }

  /**
   * Builds {@link AsyncIdempotentCalls}; each setter checks its value and names it when it refuses.
   */
  public static final class Builder {
    private final McpAsyncClient client;
    private RetryPolicy policy = RetryPolicy.defaults();
    private String keyArgument = IdempotentCalls.DEFAULT_KEY_ARGUMENT;
    private Scheduler scheduler = Schedulers.parallel();

    private Builder(McpAsyncClient client) {
      this.client = client;
    }

    /**
     * @param policy how intents are retried
     * @return this builder
     * @throws NullPointerException if null
     */
    public Builder retryPolicy(RetryPolicy policy) {
      this.policy = requireNonNull(policy, "policy must not be null");
      return this;
    }

    /**
     * @param name the key argument's name for tools whose definition has a property of that name
     *     but does not say how it is gated (default {@value IdempotentCalls#DEFAULT_KEY_ARGUMENT})
     * @return this builder
     * @throws NullPointerException if null
     * @throws IllegalArgumentException if blank
     */
    public Builder keyArgument(String name) {
      this.keyArgument = ToolKeys.checkKeyArgument(name);
      return this;
    }

    /**
     * @param scheduler where the waits between attempts are timed (default: Reactor's parallel
     *     scheduler); the caller's, never one this class starts. A wait it refuses ends the intent
     *     as {@link CallOutcome.GaveUp}; a wait it drops (disposed during the wait) is never told,
     *     and that intent's {@code Mono} does not end: dispose it after its intents ended
     * @return this builder
     * @throws NullPointerException if null
     */
    public Builder scheduler(Scheduler scheduler) {
      this.scheduler = requireNonNull(scheduler, "scheduler must not be null");
      return this;
    }

    /**
     * @return the calls
     */
    public AsyncIdempotentCalls build() {
      return new AsyncIdempotentCalls(this);
    }
  }
}
