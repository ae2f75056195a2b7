package dev.mcpgate.client;

import io.modelcontextprotocol.server.McpServerFeatures.SyncToolSpecification;
import io.modelcontextprotocol.spec.McpSchema;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/** What the server side saw of the keys: every arrival of every tool call, before the gate. */
final class Keys {
  /** One arrival: where its key was (argument or _meta) and what it was. */
  record Arrival(String tool, String argumentKey, String metaKey) {
    String key() {
      return argumentKey != null ? argumentKey : metaKey;
    }
  }

  final List<Arrival> arrivals = new CopyOnWriteArrayList<>();
  private final Map<String, Integer> unused = new ConcurrentHashMap<>();

  /** The key a request carries, in the argument {@code idempotency_key} or in {@code _meta}. */
  static String of(McpSchema.CallToolRequest request) {
    Object argument =
        request.arguments() == null ? null : request.arguments().get("idempotency_key");
    if (argument instanceof String s) {
      return s;
    }
    Object meta = request.meta() == null ? null : request.meta().get(IdempotentCalls.META_KEY);
    return meta instanceof String s ? s : null;
  }

  /** The spec, recording each arrival before its (gated) handler runs. */
  SyncToolSpecification recording(SyncToolSpecification spec) {
    var handler = spec.callHandler();
    return new SyncToolSpecification(
        spec.tool(),
        (exchange, request) -> {
          Object argument =
              request.arguments() == null ? null : request.arguments().get("idempotency_key");
          Object meta =
              request.meta() == null ? null : request.meta().get(IdempotentCalls.META_KEY);
          arrivals.add(
              new Arrival(
                  spec.tool().name(),
                  argument instanceof String s ? s : null,
                  meta instanceof String s ? s : null));
          return handler.apply(exchange, request);
        });
  }

  List<Arrival> of(String tool) {
    return arrivals.stream().filter(a -> a.tool().equals(tool)).toList();
  }
}
