package dev.mcpgate.mcp;

import dev.mcpgate.core.ClaimContext;
import io.modelcontextprotocol.spec.McpSchema;
import java.util.Map;
import java.util.Optional;

/**
 * The claim a gated handler runs under, for sync and async handlers alike. The adapter hands the
 * handler a request whose {@code _meta} carries it (in process only; it is never sent anywhere):
 *
 * <pre>{@code
 * (exchange, request) -> {
 *   ClaimContext claim = GatedClaim.of(request).orElseThrow();
 *   payments.refund(orderId, amount, claim.downstreamKey());   // same key on every attempt
 *   if (claim.isTakeover()) { ... check downstream first ... }
 * }
 * }</pre>
 */
public final class GatedClaim {
  /** The in-process {@code _meta} entry that holds the {@link ClaimContext}. */
  static final String META_ENTRY = "dev.mcpgate/claim";

  private GatedClaim() {}

  /**
   * @param request the request a gated handler received
   * @return the claim it runs under, or empty when the call is not gated (a read-only tool, or a
   *     call without a key where keys are optional)
   */
  public static Optional<ClaimContext> of(McpSchema.CallToolRequest request) {
    Map<String, Object> meta = request == null ? null : request.meta();
    Object claim = meta == null ? null : meta.get(META_ENTRY);
    return claim instanceof ClaimContext c ? Optional.of(c) : Optional.empty();
  }
}
