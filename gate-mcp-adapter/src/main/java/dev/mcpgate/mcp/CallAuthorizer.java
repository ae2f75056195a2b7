package dev.mcpgate.mcp;

import io.modelcontextprotocol.common.McpTransportContext;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;

/**
 * Decides whether a call may proceed, on every arrival: the first call, and every retry that would
 * be answered with a stored result. A replay does not run the handler, so authorization done inside
 * the handler is not done again; put it here instead, and a caller who lost the right since the
 * first call gets no stored result.
 */
@FunctionalInterface
public interface CallAuthorizer {

  /**
   * @param tenant the call's tenant, as the {@link TenantResolver} told it
   * @param context the call's transport context (the authenticated request's details)
   * @param request the call
   * @return null to let the call proceed, or a sentence for the caller saying why it may not; then
   *     nothing is claimed, run or replayed
   */
  String refusal(String tenant, McpTransportContext context, CallToolRequest request);
}
