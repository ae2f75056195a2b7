package dev.mcpgate.client;

import static java.util.Objects.requireNonNull;

import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.spec.McpSchema;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Calls the tools of an MCP server through an SDK {@link McpSyncClient} at most once per intent.
 *
 * <pre>{@code
 * IdempotentCalls calls = IdempotentCalls.builder(client).build();
 * CallOutcome outcome =
 *     calls.call("refund_order", Map.of("order_id", "ord_9f2", "amount_cents", 1250));
 * if (outcome instanceof CallOutcome.Completed done) {
 *   show(done.result());
 * } else if (outcome instanceof CallOutcome.OutcomeUnknown unknown) {
 *   remember(unknown.key()); // check the effect before doing it again, and only with this key
 * }
 * }</pre>
 *
 * <p>Each {@code call} is one intent with one {@link IntentKey}. The key goes where the tool reads
 * it: the key argument its {@code tools/list} definition advertises (an MCP Gate server says so in
 * the tool's {@code _meta} {@code dev.mcpgate/idempotency}; otherwise a property named like {@link
 * Builder#keyArgument(String)} in its input schema), else the request's {@code _meta} entry {@value
 * #META_KEY}. Tool definitions are listed once and cached ({@link #forgetTools()} drops them), and
 * listed again, bypassing the cache, before any retry after a lost answer.
 *
 * <p>A lost answer (a timeout of the client's {@code requestTimeout}, an I/O error, a closed
 * session) of a retry-safe tool, and a refusal that says {@code retry_with_same_key: true} (still
 * running, store unreachable), are retried with the same key, after the {@link RetryPolicy}'s
 * back-off or the server's {@code retry_after_ms}, whichever is longer. A lost answer of any other
 * tool is not retried (without a gate the call would act again): it ends as {@link
 * CallOutcome.GaveUp}. A tool is retry-safe when it declares {@code idempotentHint: true} (every
 * tool an MCP Gate server gates does) and its server reads the key where the client puts it: an MCP
 * Gate tool keyed only by the {@code Idempotency-Key} header is not, and one keyed by a natural key
 * is only for a call that holds every natural-key argument. Any other answer ends the intent; so
 * does a refusal that says {@code executed: unknown}, which is handed to the caller as {@link
 * CallOutcome.OutcomeUnknown}. After a lost answer, a refusal that says {@code executed: no} or a
 * JSON-RPC error ends as {@link CallOutcome.GaveUp} with {@link Executed#UNKNOWN}: it does not
 * speak for the lost attempt. A retry never carries a new key.
 *
 * <p>Thread-safe: one instance may serve many threads; each call blocks its caller's thread,
 * sleeping between attempts.
 */
public final class IdempotentCalls {
  /** The request {@code _meta} entry an MCP Gate server reads a key from. */
  public static final String META_KEY = "dev.mcpgate/idempotency-key";

  /** The result {@code _meta} entry with which an MCP Gate server marks a replayed result. */
  public static final String META_REPLAYED = "dev.mcpgate/replayed";

  /** The key argument's name when the server does not say it: {@value}. */
  public static final String DEFAULT_KEY_ARGUMENT = "idempotency_key";

  private final McpSyncClient client;
  private final RetryPolicy policy;
  private final ToolKeys keys;

  private IdempotentCalls(Builder b) {
    this.client = b.client;
    this.policy = b.policy;
    this.keys = new ToolKeys(b.keyArgument);
  }

  /**
   * @param client an SDK client; initialized by the first call if it is not yet
   * @return a builder with the default {@link RetryPolicy}
   * @throws NullPointerException if {@code client} is null
   */
  public static Builder builder(McpSyncClient client) {
    return new Builder(requireNonNull(client, "client must not be null"));
  }

  /**
   * Calls the tool as a new intent, under a new random key.
   *
   * @param tool the tool's name
   * @param arguments the tool's arguments, without a key
   * @return how the intent ended; never null
   * @throws NullPointerException if {@code tool} or {@code arguments} is null
   * @throws IllegalArgumentException if the arguments already hold the tool's key argument
   */
  public CallOutcome call(String tool, Map<String, ?> arguments) {
    return call(IntentKey.random(), tool, arguments);
  }

  /**
   * Calls the tool as the intent that {@code key} names: the caller's own operation id, or the key
   * of an earlier outcome to try that intent again.
   *
   * @param key the intent's key, sent with every attempt
   * @param tool the tool's name
   * @param arguments the tool's arguments, without a key; the same as the intent's earlier calls
   * @return how the intent ended; never null
   * @throws NullPointerException if an argument is null
   * @throws IllegalArgumentException if the arguments already hold the tool's key argument
   */
  public CallOutcome call(IntentKey key, String tool, Map<String, ?> arguments) {
    requireNonNull(key, "key must not be null");
    requireNonNull(tool, "tool must not be null");
    requireNonNull(arguments, "arguments must not be null");
    Map<String, ?> args = ArgumentSnapshot.of(arguments);
    Attempts attempts = new Attempts(policy, key, tool);
    while (true) {
      Attempts.Next next;
      try {
        next = attempt(attempts, tool, args);
      } catch (RuntimeException e) {
        if (!attempts.anySent()) {
          throw e; // nothing was sent: the caller's mistake, as the caller made it
        }
        return attempts.internalFailure(e);
      }
      if (next instanceof Attempts.Stop stop) {
        return stop.outcome();
      }
      try {
        sleep(((Attempts.Retry) next).delay());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return attempts.interrupted();
      }
    }
  }

  private Attempts.Next attempt(Attempts attempts, String tool, Map<String, ?> args) {
    boolean refresh = attempts.refreshDue();
    KeyPlacement placement;
    try {
      placement = refresh ? refresh(tool) : placement(tool);
    } catch (RuntimeException e) {
      attempts.begin();
      // after a lost answer the intent's effect stays unknown: a failed listing never makes it NO
      return attempts.failed(e, false, true);
    }
    if (refresh) {
      Attempts.Next stale = attempts.refreshed(placement.retrySafe(args));
      if (stale != null) {
        return stale;
      }
    }
    Attempts.Next changed = attempts.claim(placement, args);
    if (changed != null) {
      return changed;
    }
    attempts.begin();
    McpSchema.CallToolRequest request = placement.request(tool, args, attempts.key());
    attempts.sending(placement);
    try {
      return attempts.answered(client.callTool(request));
    } catch (RuntimeException e) {
      return attempts.failed(e, true, placement.retrySafe(args));
    }
  }

  /** Drops the cached tool definitions: the next call lists the server's tools again. */
  public void forgetTools() {
    keys.clear();
  }

  private KeyPlacement placement(String tool) {
    KeyPlacement cached = keys.cached(tool);
    if (cached != null) {
      return cached;
    }
    return refresh(tool);
  }

  /** Lists the server's tools again, bypassing the cache (before a retry after a lost answer). */
  private KeyPlacement refresh(String tool) {
    List<McpSchema.ListToolsResult> pages = new ArrayList<>();
    ToolKeys.Pages cursors = new ToolKeys.Pages();
    // the first page only: listTools() follows every cursor itself, without bound
    McpSchema.ListToolsResult page = client.listTools(McpSchema.FIRST_PAGE);
    pages.add(page);
    for (String cursor = cursors.next(page); cursor != null; cursor = cursors.next(page)) {
      page = client.listTools(cursor);
      pages.add(page);
    }
    return keys.relisted(tool, pages);
  }

  private static void sleep(Duration wait) throws InterruptedException {
    long ms = wait.toMillis();
    Thread.sleep(ms, (int) (wait.toNanos() - ms * 1_000_000));
  }

  /** Builds {@link IdempotentCalls}; each setter checks its value and names it when it refuses. */
  public static final class Builder {
    private final McpSyncClient client;
    private RetryPolicy policy = RetryPolicy.defaults();
    private String keyArgument = DEFAULT_KEY_ARGUMENT;

    private Builder(McpSyncClient client) {
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
     *     but does not say how it is gated (default {@value IdempotentCalls#DEFAULT_KEY_ARGUMENT});
     *     an MCP Gate server's own word wins
     * @return this builder
     * @throws NullPointerException if null
     * @throws IllegalArgumentException if blank
     */
    public Builder keyArgument(String name) {
      this.keyArgument = ToolKeys.checkKeyArgument(name);
      return this;
    }

    /**
     * @return the calls
     */
    public IdempotentCalls build() {
      return new IdempotentCalls(this);
    }
  }
}
