package dev.mcpgate.quarkus.deployment.review;

import com.sun.net.httpserver.HttpServer;
import dev.mcpgate.core.OutcomeUnknownException;
import dev.mcpgate.mcp.Idempotent;
import io.quarkiverse.mcp.server.Tool;
import io.quarkiverse.mcp.server.ToolArg;
import io.quarkiverse.mcp.server.ToolCallException;
import io.quarkiverse.mcp.server.ToolResponse;
import io.smallrye.mutiny.Uni;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.RequestOptions;
import jakarta.inject.Inject;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Gated tools that charge an order at a real (local) payment provider over HTTP. The provider takes
 * the charge when the request arrives and answers after {@link #ANSWER_MS}; each tool waits at most
 * {@link #WAIT_MS}, the way a Quarkus application waits on a downstream call, so the charge happens
 * and the tool then fails with the timeout of the client it used.
 */
public class DownstreamTimeoutTools {
  static final int ANSWER_MS = 1500;
  static final int WAIT_MS = 300;
  static final Map<String, AtomicInteger> CHARGES = new ConcurrentHashMap<>();
  private static volatile HttpServer provider;

  @Inject Vertx vertx;

  static int charges(String order) {
    AtomicInteger n = CHARGES.get(order);
    return n == null ? 0 : n.get();
  }

  static synchronized URI provider(String order) {
    if (provider == null) {
      try {
        HttpServer s = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        s.createContext(
            "/charge",
            exchange -> {
              String o = exchange.getRequestURI().getQuery().substring("order=".length());
              CHARGES.computeIfAbsent(o, k -> new AtomicInteger()).incrementAndGet();
              try {
                Thread.sleep(ANSWER_MS);
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
              byte[] body = "charged".getBytes();
              exchange.sendResponseHeaders(200, body.length);
              exchange.getResponseBody().write(body);
              exchange.close();
            });
        s.setExecutor(Executors.newCachedThreadPool());
        s.start();
        provider = s;
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return URI.create(
        "http://127.0.0.1:" + provider.getAddress().getPort() + "/charge?order=" + order);
  }

  private static final HttpClient JDK = HttpClient.newHttpClient();

  /** The JDK's HttpClient with a request timeout: HttpTimeoutException (an IOException). */
  @Tool(
      description = "Charges an order (JDK HttpClient).",
      annotations = @Tool.Annotations(idempotentHint = true))
  @Idempotent
  public ToolResponse chargeJdk(
      @ToolArg(name = "order_id") String orderId,
      @ToolArg(name = "idempotency_key", required = false) String idempotencyKey)
      throws IOException, InterruptedException {
    HttpResponse<String> r =
        JDK.send(
            HttpRequest.newBuilder(provider(orderId))
                .timeout(Duration.ofMillis(WAIT_MS))
                .POST(HttpRequest.BodyPublishers.noBody())
                .build(),
            HttpResponse.BodyHandlers.ofString());
    return ToolResponse.success(r.body() + " " + orderId);
  }

  /** A reactive call awaited with a deadline: Mutiny's TimeoutException. */
  @Tool(
      description = "Charges an order (Uni awaited at most).",
      annotations = @Tool.Annotations(idempotentHint = true))
  @Idempotent
  public ToolResponse chargeMutiny(
      @ToolArg(name = "order_id") String orderId,
      @ToolArg(name = "idempotency_key", required = false) String idempotencyKey) {
    String body =
        Uni.createFrom()
            .completionStage(
                () ->
                    JDK.sendAsync(
                        HttpRequest.newBuilder(provider(orderId))
                            .POST(HttpRequest.BodyPublishers.noBody())
                            .build(),
                        HttpResponse.BodyHandlers.ofString()))
            .map(HttpResponse::body)
            .await()
            .atMost(Duration.ofMillis(WAIT_MS));
    return ToolResponse.success(body + " " + orderId);
  }

  /**
   * Vert.x's HTTP client (what the Quarkus REST client runs on) with a request timeout: a
   * NoStackTraceTimeoutException, a java.util.concurrent.TimeoutException.
   */
  @Tool(
      description = "Charges an order (Vert.x HTTP client).",
      annotations = @Tool.Annotations(idempotentHint = true))
  @Idempotent
  public ToolResponse chargeVertx(
      @ToolArg(name = "order_id") String orderId,
      @ToolArg(name = "idempotency_key", required = false) String idempotencyKey) {
    URI uri = provider(orderId);
    String body =
        vertx
            .createHttpClient()
            .request(
                new RequestOptions()
                    .setMethod(HttpMethod.POST)
                    .setAbsoluteURI(uri.toString())
                    .setIdleTimeout(WAIT_MS))
            .compose(req -> req.send())
            .compose(resp -> resp.body())
            .map(Object::toString)
            .toCompletionStage()
            .toCompletableFuture()
            .join();
    return ToolResponse.success(body + " " + orderId);
  }

  /** Control: the charge, then a read timeout carried in a ToolCallException. */
  @Tool(
      description = "Charges an order (ToolCallException around a read timeout).",
      annotations = @Tool.Annotations(idempotentHint = true))
  @Idempotent
  public ToolResponse chargeWrapped(
      @ToolArg(name = "order_id") String orderId,
      @ToolArg(name = "idempotency_key", required = false) String idempotencyKey) {
    CHARGES.computeIfAbsent(orderId, k -> new AtomicInteger()).incrementAndGet();
    throw new ToolCallException(
        "the provider did not answer", new SocketTimeoutException("Read timed out"));
  }

  /** Control: the charge, then OutcomeUnknownException. */
  @Tool(
      description = "Charges an order (OutcomeUnknownException).",
      annotations = @Tool.Annotations(idempotentHint = true))
  @Idempotent
  public ToolResponse chargeUnknown(
      @ToolArg(name = "order_id") String orderId,
      @ToolArg(name = "idempotency_key", required = false) String idempotencyKey) {
    CHARGES.computeIfAbsent(orderId, k -> new AtomicInteger()).incrementAndGet();
    throw new OutcomeUnknownException("the provider did not answer");
  }
}
