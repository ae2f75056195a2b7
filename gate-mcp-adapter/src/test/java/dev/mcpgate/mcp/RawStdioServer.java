package dev.mcpgate.mcp;

import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.json.TypeRef;
import io.modelcontextprotocol.server.McpServer;
import io.modelcontextprotocol.server.McpServerFeatures;
import io.modelcontextprotocol.server.McpSyncServer;
import io.modelcontextprotocol.server.transport.StdioServerTransportProvider;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * A real SDK server on the stdio transport (in-process pipes), spoken to in raw JSON-RPC lines: for
 * wire fields the SDK's own client cannot send (the 2026-07-28 draft's {@code inputResponses} and
 * {@code requestState}, string ids). Each instance is a separate server process as far as the
 * protocol can tell: a new connection with no session.
 */
final class RawStdioServer implements AutoCloseable {
  private static final TypeRef<Map<String, Object>> MAP = new TypeRef<>() {};

  private final McpJsonMapper json = ExactNumbers.jsonMapper(); // as a server should be
  private final Pipe toServer = new Pipe();
  private final Pipe toClient = new Pipe();
  private final McpSyncServer server;
  private final Map<String, CompletableFuture<Map<String, Object>>> pending =
      new ConcurrentHashMap<>();

  RawStdioServer(List<McpServerFeatures.SyncToolSpecification> specs) {
    server =
        McpServer.sync(new StdioServerTransportProvider(json, toServer.in, toClient.out))
            .jsonMapper(json)
            .serverInfo("gated-raw", "1")
            .capabilities(McpHarness.tools())
            .tools(specs)
            .requestTimeout(Duration.ofSeconds(60))
            .build();
    Thread reader = new Thread(this::readResponses, "raw-stdio-client");
    reader.setDaemon(true);
    reader.start();
  }

  private void readResponses() {
    try (BufferedReader lines =
        new BufferedReader(new InputStreamReader(toClient.in, StandardCharsets.UTF_8))) {
      String line;
      while ((line = lines.readLine()) != null) {
        Map<String, Object> message = json.readValue(line, MAP);
        Object id = message.get("id");
        if (id != null && (message.containsKey("result") || message.containsKey("error"))) {
          pending
              .computeIfAbsent(String.valueOf(id), k -> new CompletableFuture<>())
              .complete(message);
        }
      }
    } catch (IOException e) {
      pending.values().forEach(f -> f.completeExceptionally(e));
    }
  }

  /** Sends one raw line; the answer to {@code id} completes the future. */
  CompletableFuture<Map<String, Object>> send(Object id, String line) {
    CompletableFuture<Map<String, Object>> answer =
        pending.computeIfAbsent(String.valueOf(id), k -> new CompletableFuture<>());
    byte[] bytes = (line + "\n").getBytes(StandardCharsets.UTF_8);
    try {
      toServer.out.write(bytes, 0, bytes.length);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
    return answer;
  }

  /** Sends one raw request and waits for its answer. */
  Map<String, Object> request(Object id, String line) throws Exception {
    return send(id, line).get(30, TimeUnit.SECONDS);
  }

  /** The 2025 lifecycle: initialize, then notifications/initialized. */
  RawStdioServer initialize() throws Exception {
    request(
        "init",
        "{\"jsonrpc\":\"2.0\",\"id\":\"init\",\"method\":\"initialize\",\"params\":"
            + "{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},"
            + "\"clientInfo\":{\"name\":\"raw\",\"version\":\"1\"}}}");
    byte[] note =
        "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n"
            .getBytes(StandardCharsets.UTF_8);
    toServer.out.write(note, 0, note.length);
    return this;
  }

  @Override
  public void close() {
    try {
      toServer.out.close();
    } catch (IOException ignored) {
      // an in-process pipe does not fail to close
    }
    server.close();
  }
}
