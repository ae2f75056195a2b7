package dev.mcpgate.spring;

import dev.mcpgate.mcp.KeySource;
import io.modelcontextprotocol.common.McpTransportContext;
import io.modelcontextprotocol.server.McpTransportContextExtractor;
import org.springframework.web.servlet.function.ServerRequest;

/**
 * On WebMVC, the {@code Idempotency-Key} header of a call's request in its MCP transport context,
 * where the adapter reads a key of {@link KeySource#HEADER}: Spring AI's WebMVC transports make the
 * context with an extractor that keeps no header. (The caller's identity needs no such help here: a
 * tool runs on the request's thread.) Loaded only with spring-webmvc.
 */
final class WebMvcKeyHeader {
  private WebMvcKeyHeader() {}

  /**
   * @param transport an MCP server transport bean
   * @return true when the transport's context now carries the header
   */
  static boolean install(Object transport) {
    return TransportContexts.wrap(transport, ServerRequest.class, Copying.class, Copying::new);
  }

  /** The transport's extractor, and the key header on top. */
  record Copying(McpTransportContextExtractor<ServerRequest> original)
      implements McpTransportContextExtractor<ServerRequest> {
    @Override
    public McpTransportContext extract(ServerRequest request) {
      return TransportContexts.withKeyHeader(
          original == null ? null : original.extract(request),
          request.headers().header(KeySource.HEADER_CONTEXT_KEY));
    }
  }
}
