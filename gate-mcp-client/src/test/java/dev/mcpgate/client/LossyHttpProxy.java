package dev.mcpgate.client;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An HTTP proxy in front of a Streamable HTTP MCP server that loses the answers to the first {@code
 * dropsPerKey} {@code tools/call} requests of each idempotency key: it forwards the request, waits
 * until the server has answered it in full (the call ran), then closes the client's connection
 * without a byte of the answer. Everything else passes through; the standalone SSE stream (GET) is
 * answered 405, which the SDK client accepts.
 */
final class LossyHttpProxy implements AutoCloseable {
  private static final Set<String> NOT_FORWARDED =
      Set.of(
          "host",
          "connection",
          "content-length",
          "transfer-encoding",
          "upgrade",
          "expect",
          "keep-alive",
          "http2-settings",
          "te",
          "trailer",
          "proxy-connection");

  private final ObjectMapper mapper = new ObjectMapper();
  private final HttpServer server;
  private final ExecutorService threads = Executors.newCachedThreadPool();
  private final HttpClient http =
      HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
  private final URI target;
  private final int dropsPerKey;
  private final Map<String, AtomicInteger> dropped = new ConcurrentHashMap<>();
  final AtomicInteger droppedAnswers = new AtomicInteger();

  LossyHttpProxy(URI target, int dropsPerKey) throws IOException {
    this.target = target;
    this.dropsPerKey = dropsPerKey;
    this.server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext("/", this::handle);
    server.setExecutor(threads);
    server.start();
  }

  int port() {
    return server.getAddress().getPort();
  }

  private void handle(HttpExchange exchange) throws IOException {
    try {
      if ("GET".equals(exchange.getRequestMethod())) {
        exchange.sendResponseHeaders(405, -1);
        return;
      }
      byte[] body;
      try (InputStream in = exchange.getRequestBody()) {
        body = in.readAllBytes();
      }
      HttpRequest.Builder forward =
          HttpRequest.newBuilder(target.resolve(exchange.getRequestURI().getRawPath()))
              .timeout(Duration.ofSeconds(60))
              .method(exchange.getRequestMethod(), HttpRequest.BodyPublishers.ofByteArray(body));
      exchange
          .getRequestHeaders()
          .forEach(
              (name, values) -> {
                if (!NOT_FORWARDED.contains(name.toLowerCase(Locale.ROOT))) {
                  values.forEach(v -> forward.header(name, v));
                }
              });
      HttpResponse<byte[]> response;
      try {
        response = http.send(forward.build(), HttpResponse.BodyHandlers.ofByteArray());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IOException(e);
      }
      if (loses(body)) {
        droppedAnswers.incrementAndGet();
        return; // closed without an answer: the connection breaks after the call ran
      }
      response
          .headers()
          .map()
          .forEach(
              (name, values) -> {
                if (!NOT_FORWARDED.contains(name.toLowerCase(Locale.ROOT))
                    && !name.startsWith(":")) {
                  exchange.getResponseHeaders().put(name, List.copyOf(values));
                }
              });
      byte[] answer = response.body();
      exchange.sendResponseHeaders(response.statusCode(), answer.length == 0 ? -1 : answer.length);
      if (answer.length > 0) {
        try (OutputStream out = exchange.getResponseBody()) {
          out.write(answer);
        }
      }
    } finally {
      exchange.close();
    }
  }

  private boolean loses(byte[] body) {
    String key;
    try {
      JsonNode message = mapper.readTree(body);
      if (message == null || !"tools/call".equals(message.path("method").asText())) {
        return false;
      }
      JsonNode params = message.path("params");
      JsonNode k = params.path("arguments").path("idempotency_key");
      if (!k.isTextual()) {
        k = params.path("_meta").path(IdempotentCalls.META_KEY);
      }
      if (!k.isTextual()) {
        return false;
      }
      key = k.asText();
    } catch (IOException notJson) {
      return false;
    }
    return dropped.computeIfAbsent(key, x -> new AtomicInteger()).incrementAndGet() <= dropsPerKey;
  }

  @Override
  public void close() {
    server.stop(0);
    threads.shutdownNow();
  }
}
