package dev.mcpgate.mcp;

import dev.mcpgate.core.ClaimContext;
import io.modelcontextprotocol.spec.McpSchema;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The claim a gated handler runs under, for sync and async handlers alike:
 *
 * <pre>{@code
 * (exchange, request) -> {
 *   ClaimContext claim = GatedClaim.of(request).orElseThrow();
 *   payments.refund(orderId, amount, claim.downstreamKey());   // same key on every attempt
 *   if (claim.isTakeover()) { ... check downstream first ... }
 * }
 * }</pre>
 *
 * <p>The adapter hands each gated handler a request object of its own and keeps that object's claim
 * here, by identity, while the handler runs; nothing travels in the request's {@code _meta} (which
 * is wire data), and nothing stays after the handler returns.
 */
public final class GatedClaim {
  private static final Map<Identity, ClaimContext> RUNNING = new ConcurrentHashMap<>();

  private GatedClaim() {}

  /**
   * @param request the request a gated handler received
   * @return the claim it runs under, or empty when the call is not gated (a read-only tool, a call
   *     without a key where keys are optional) or the handler has returned
   */
  public static Optional<ClaimContext> of(McpSchema.CallToolRequest request) {
    return request == null
        ? Optional.empty()
        : Optional.ofNullable(RUNNING.get(new Identity(request)));
  }

  /** Makes {@code claim} visible through {@link #of} for {@code request} until the scope closes. */
  static Scope bind(McpSchema.CallToolRequest request, ClaimContext claim) {
    Identity identity = new Identity(request);
    RUNNING.put(identity, claim);
    return () -> RUNNING.remove(identity);
  }

  /** Ends a {@link #bind}; closing it twice is harmless. */
  interface Scope extends AutoCloseable {
    @Override
    void close();
  }

  /** A map key that compares requests by identity, not by value. */
  private record Identity(McpSchema.CallToolRequest request) {
    @Override
    public boolean equals(Object o) {
      return o instanceof Identity other && other.request == request;
    }

    @Override
    public int hashCode() {
      return System.identityHashCode(request);
    }
  }
}
