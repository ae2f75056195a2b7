package dev.mcpgate.spring;

import dev.mcpgate.mcp.KeySource;
import io.modelcontextprotocol.common.McpTransportContext;
import io.modelcontextprotocol.server.McpTransportContextExtractor;
import java.lang.reflect.Field;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;

/**
 * The MCP transport context of a call over HTTP, as the starter extends it: Spring AI's HTTP
 * transports make it with a context extractor (a field of type {@code
 * McpTransportContextExtractor<R>}, {@code R} the stack's request type), which the starter wraps.
 */
final class TransportContexts {
  private TransportContexts() {}

  /**
   * Replaces a transport's context extractor for requests of {@code requestType} by {@code wrap} of
   * it, unless it is wrapped already.
   *
   * @return true when the transport's extractor is now wrapped; false when it has none of that
   *     request type or it cannot be set (a named module, a final field)
   */
  static <R> boolean wrap(
      Object transport,
      Class<R> requestType,
      Class<?> wrapperType,
      UnaryOperator<McpTransportContextExtractor<R>> wrap) {
    for (Class<?> c = transport.getClass(); c != null && c != Object.class; c = c.getSuperclass()) {
      for (Field f : c.getDeclaredFields()) {
        if (f.getType() == McpTransportContextExtractor.class && takes(f, requestType)) {
          try {
            f.setAccessible(true);
            @SuppressWarnings("unchecked")
            McpTransportContextExtractor<R> original =
                (McpTransportContextExtractor<R>) f.get(transport);
            if (!wrapperType.isInstance(original)) {
              f.set(transport, wrap.apply(original));
            }
            return true;
          } catch (ReflectiveOperationException | RuntimeException e) {
            return false;
          }
        }
      }
    }
    return false;
  }

  private static boolean takes(Field f, Class<?> requestType) {
    Type type = f.getGenericType();
    return type instanceof ParameterizedType p
        && p.getActualTypeArguments().length == 1
        && p.getActualTypeArguments()[0] == requestType;
  }

  /**
   * @param base the context the transport's own extractor made, or null
   * @param lines the request's {@code Idempotency-Key} header lines, or null
   * @return the context, carrying the header's key under {@link KeySource#HEADER_CONTEXT_KEY} as
   *     {@link KeySource#copyHeader(List, Map)} puts it (the transport's own entry wins)
   */
  static McpTransportContext withKeyHeader(McpTransportContext base, List<String> lines) {
    McpTransportContext context = base == null ? McpTransportContext.EMPTY : base;
    if (lines == null || lines.isEmpty() || context.get(KeySource.HEADER_CONTEXT_KEY) != null) {
      return context;
    }
    Map<String, Object> values = new HashMap<>();
    KeySource.copyHeader(lines, values);
    return new KeyHeader(context, values.get(KeySource.HEADER_CONTEXT_KEY));
  }

  /** A transport context and the call's key header on top. */
  private record KeyHeader(McpTransportContext base, Object key) implements McpTransportContext {
    @Override
    public Object get(String name) {
      return KeySource.HEADER_CONTEXT_KEY.equals(name) ? key : base.get(name);
    }
  }
}
