package dev.mcpgate.mcp;

import dev.mcpgate.core.ClaimContext;
import io.modelcontextprotocol.spec.McpSchema;
import java.util.AbstractMap;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

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
 * <p>The adapter hands each attempt's handler a request of its own, whose {@code meta()} map holds
 * the caller's {@code _meta} entries as they came (an empty map when there were none) and, beside
 * its entries, the claim while the handler runs. The claim is no entry: it is never written out
 * with the request, and it is gone once the handler returns. A request made with that same map (a
 * copy of the request) finds the claim too; one made with any other map finds none. No state is
 * kept anywhere else.
 */
public final class GatedClaim {
  private GatedClaim() {}

  /**
   * @param request the request a gated handler received
   * @return the claim it runs under, or empty when the call is not gated (a read-only tool, a call
   *     without a key where keys are optional) or the handler has returned
   */
  public static Optional<ClaimContext> of(McpSchema.CallToolRequest request) {
    return request != null && request.meta() instanceof Carrier carrier && carrier.owner == request
        ? Optional.ofNullable(carrier.claim)
        : Optional.empty();
  }

  /**
   * @return a request for one attempt's handler: {@code request}'s name and {@code _meta} entries,
   *     with {@code arguments}, whose meta map can carry a claim ({@link #bind})
   */
  static McpSchema.CallToolRequest carrying(
      McpSchema.CallToolRequest request, Map<String, Object> arguments) {
    Carrier carrier = new Carrier(request.meta());
    McpSchema.CallToolRequest own =
        new McpSchema.CallToolRequest(request.name(), arguments, carrier);
    carrier.owner = own;
    return own;
  }

  /**
   * Makes {@code claim} visible through {@link #of} for {@code request}, made by {@link #carrying},
   * until the scope closes.
   */
  static Scope bind(McpSchema.CallToolRequest request, ClaimContext claim) {
    Carrier carrier = (Carrier) request.meta();
    carrier.claim = claim;
    return () -> carrier.claim = null;
  }

  /** Ends a {@link #bind}; closing it twice is harmless. */
  interface Scope extends AutoCloseable {
    @Override
    void close();
  }

  /**
   * The caller's {@code _meta} entries, read and written through, and the claim of the one request
   * made with it, which is not an entry.
   */
  private static final class Carrier extends AbstractMap<String, Object> {
    private final Map<String, Object> entries;
    private volatile McpSchema.CallToolRequest owner;
    private volatile ClaimContext claim;

    Carrier(Map<String, Object> entries) {
      this.entries = entries == null ? new HashMap<>() : entries;
    }

    @Override
    public Object put(String key, Object value) {
      return entries.put(key, value);
    }

    @Override
    public Set<Entry<String, Object>> entrySet() {
      return entries.entrySet();
    }

    @Override
    public Object get(Object key) {
      return entries.get(key);
    }

    @Override
    public boolean containsKey(Object key) {
      return entries.containsKey(key);
    }
  }
}
