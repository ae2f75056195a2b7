package dev.mcpgate.client;

import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.json.TypeRef;
import io.modelcontextprotocol.spec.McpClientTransport;
import io.modelcontextprotocol.spec.McpSchema;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import reactor.core.publisher.Mono;

/**
 * An MCP client transport speaking stdio's newline-delimited JSON-RPC to a server over pipes, that
 * loses the server's answers to the first {@code dropsPerKey} {@code tools/call} requests of each
 * idempotency key: the server has run the call and written its answer; the client never reads it,
 * as when a connection breaks after the work was done.
 */
final class LossyStdioClientTransport implements McpClientTransport {
  private final McpJsonMapper json;
  private final InputStream fromServer;
  private final OutputStream toServer;
  private final int dropsPerKey;
  private final Map<Object, String> keyOfRequest = new ConcurrentHashMap<>();
  private final Map<String, AtomicInteger> dropped = new ConcurrentHashMap<>();
  final AtomicInteger droppedAnswers = new AtomicInteger();
  private final AtomicLong nextCallDelayMillis = new AtomicLong();
  private volatile boolean closing;

  LossyStdioClientTransport(
      McpJsonMapper json, InputStream fromServer, OutputStream toServer, int dropsPerKey) {
    this.json = json;
    this.fromServer = fromServer;
    this.toServer = toServer;
    this.dropsPerKey = dropsPerKey;
  }

  @Override
  public Mono<Void> connect(
      Function<Mono<McpSchema.JSONRPCMessage>, Mono<McpSchema.JSONRPCMessage>> handler) {
    Thread reader =
        new Thread(
            () -> {
              try (BufferedReader lines =
                  new BufferedReader(new InputStreamReader(fromServer, StandardCharsets.UTF_8))) {
                String line;
                while (!closing && (line = lines.readLine()) != null) {
                  McpSchema.JSONRPCMessage message =
                      McpSchema.deserializeJsonRpcMessage(json, line);
                  if (!lost(message)) {
                    handler.apply(Mono.just(message)).subscribe();
                  }
                }
              } catch (IOException e) {
                if (!closing) {
                  throw new IllegalStateException("stdio client read failed", e);
                }
              }
            },
            "lossy-mcp-client");
    reader.setDaemon(true);
    reader.start();
    return Mono.empty();
  }

  /**
   * Holds the next {@code tools/call} request back for this long before writing it, as a busy
   * machine may pause the thread that sends it: requests sent later overtake it.
   */
  void delayNextCall(long millis) {
    nextCallDelayMillis.set(millis);
  }

  private boolean lost(McpSchema.JSONRPCMessage message) {
    if (!(message instanceof McpSchema.JSONRPCResponse response)) {
      return false;
    }
    String key = keyOfRequest.remove(response.id());
    if (key == null) {
      return false;
    }
    if (dropped.computeIfAbsent(key, k -> new AtomicInteger()).incrementAndGet() <= dropsPerKey) {
      droppedAnswers.incrementAndGet();
      return true;
    }
    return false;
  }

  @Override
  public Mono<Void> sendMessage(McpSchema.JSONRPCMessage message) {
    return Mono.fromRunnable(
        () -> {
          if (message instanceof McpSchema.JSONRPCRequest request
              && McpSchema.METHOD_TOOLS_CALL.equals(request.method())
              && request.params() instanceof McpSchema.CallToolRequest call
              && Keys.of(call) != null) {
            keyOfRequest.put(request.id(), Keys.of(call));
            long delay = nextCallDelayMillis.getAndSet(0);
            if (delay > 0) {
              try {
                Thread.sleep(delay);
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
            }
          }
          try {
            byte[] line =
                (json.writeValueAsString(message) + "\n").getBytes(StandardCharsets.UTF_8);
            synchronized (toServer) {
              toServer.write(line);
              toServer.flush();
            }
          } catch (IOException e) {
            throw new IllegalStateException("stdio client write failed", e);
          }
        });
  }

  @Override
  public Mono<Void> closeGracefully() {
    return Mono.fromRunnable(
        () -> {
          closing = true;
          try {
            toServer.close();
          } catch (IOException ignored) {
            // already closed
          }
        });
  }

  @Override
  public <T> T unmarshalFrom(Object data, TypeRef<T> type) {
    return json.convertValue(data, type);
  }
}
