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
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
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
  private final AtomicReference<ListHold> nextListHold = new AtomicReference<>();
  private volatile ListFailure listFailure = ListFailure.NONE;
  private volatile Function<Mono<McpSchema.JSONRPCMessage>, Mono<McpSchema.JSONRPCMessage>> handler;
  private volatile boolean closing;

  /** How the {@code tools/list} requests fail from {@link #failLists(ListFailure)} on. */
  enum ListFailure {
    /** They do not: they go to the server. */
    NONE,
    /** The server's answer is a JSON-RPC error (an internal error while it is redeployed). */
    JSON_RPC_ERROR,
    /** The request cannot be written (the connection broke). */
    IO_ERROR
  }

  /** A held {@code tools/list} request: {@link #held} once it is held; sent on {@link #release}. */
  record ListHold(CountDownLatch held, CountDownLatch released) {
    void awaitHeld() throws InterruptedException {
      if (!held.await(30, TimeUnit.SECONDS)) {
        throw new IllegalStateException("no tools/list request was held");
      }
    }

    void release() {
      released.countDown();
    }
  }

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
    this.handler = handler;
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

  /**
   * Holds the next {@code tools/list} request back until the returned hold is released, as a busy
   * machine may pause the thread that sends it; it then goes on as {@link #failLists} says.
   */
  ListHold holdNextList() {
    ListHold hold = new ListHold(new CountDownLatch(1), new CountDownLatch(1));
    nextListHold.set(hold);
    return hold;
  }

  /** From now on, every {@code tools/list} request fails this way. */
  void failLists(ListFailure failure) {
    listFailure = failure;
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
          if (message instanceof McpSchema.JSONRPCRequest request
              && McpSchema.METHOD_TOOLS_LIST.equals(request.method())) {
            ListHold hold = nextListHold.getAndSet(null);
            if (hold != null) {
              hold.held.countDown();
              try {
                hold.released.await(30, TimeUnit.SECONDS);
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
            }
            switch (listFailure) {
              case JSON_RPC_ERROR -> {
                handler
                    .apply(
                        Mono.just(
                            McpSchema.JSONRPCResponse.error(
                                request.id(),
                                new McpSchema.JSONRPCResponse.JSONRPCError(
                                    -32603, "tools/list failed (test)"))))
                    .subscribe();
                return;
              }
              case IO_ERROR -> throw new IllegalStateException("stdio client write failed (test)");
              case NONE -> {
                // sent below
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
