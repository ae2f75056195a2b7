package dev.mcpgate.core.review;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import dev.mcpgate.core.GatePolicy;
import dev.mcpgate.core.GateResult;
import dev.mcpgate.core.IdempotencyGate;
import dev.mcpgate.core.ResultMapper;
import dev.mcpgate.core.ToolCall;
import dev.mcpgate.core.memory.InMemoryIdempotencyStore;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Review K. design.md: "The action's outcome is unknown (a timeout on a downstream call): the claim
 * must not be freed silently". The default policy's walk counts a read timeout only as an {@code
 * InterruptedIOException} (HttpURLConnection's, Apache's SocketTimeoutException). The JDK's own
 * HTTP client says the same thing with {@code java.net.http.HttpTimeoutException} (an IOException,
 * not an InterruptedIOException), and a deadline on an asynchronous call with {@code
 * java.util.concurrent.TimeoutException} ({@code Future.get(timeout)}, {@code
 * CompletableFuture.orTimeout}, Reactor's {@code timeout}, Vert.x's HTTP client): both are taken
 * for plain failures, the key is released, and the retry pays again. A real local HTTP provider
 * takes the payment when the request arrives and answers late.
 */
class DownstreamTimeoutsOfTheJdkReviewTest {
  private final AtomicInteger payments = new AtomicInteger();
  private final HttpServer provider = provider();
  private final HttpClient http = HttpClient.newHttpClient();
  private final IdempotencyGate gate =
      IdempotencyGate.builder(InMemoryIdempotencyStore.create())
          .policy(GatePolicy.builder().inFlightWait(Duration.ZERO).build())
          .build();

  private HttpServer provider() {
    try {
      HttpServer s = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
      s.createContext(
          "/pay",
          exchange -> {
            payments.incrementAndGet(); // the provider takes the payment
            try {
              Thread.sleep(1500); // and answers late
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
            exchange.sendResponseHeaders(200, -1);
            exchange.close();
          });
      s.setExecutor(Executors.newCachedThreadPool());
      s.start();
      return s;
    } catch (java.io.IOException e) {
      throw new IllegalStateException(e);
    }
  }

  @AfterEach
  void close() {
    gate.close();
    provider.stop(0);
  }

  private HttpRequest pay() {
    return HttpRequest.newBuilder(
            URI.create("http://127.0.0.1:" + provider.getAddress().getPort() + "/pay"))
        .POST(HttpRequest.BodyPublishers.noBody())
        .timeout(Duration.ofMillis(300))
        .build();
  }

  private void twice(String what, ThrowingAction action) {
    ToolCall call =
        ToolCall.of("acme", "pay", "k-" + UUID.randomUUID(), Map.of("order_id", "ord_1"));
    List<String> answers = new ArrayList<>();
    for (int i = 0; i < 2; i++) {
      GateResult<String> r =
          gate.execute(
              call,
              ResultMapper.utf8(),
              ctx -> {
                action.run();
                return "paid";
              });
      answers.add(String.valueOf(r));
    }
    assertThat(payments).as("%s: payments taken; answers %s", what, answers).hasValue(1);
  }

  interface ThrowingAction {
    void run() throws Exception;
  }

  @Test
  void theJdkHttpClientsRequestTimeoutFencesTheKey() {
    twice("HttpTimeoutException", () -> http.send(pay(), HttpResponse.BodyHandlers.discarding()));
  }

  @Test
  void aDeadlineOnAnAsynchronousCallFencesTheKey() {
    twice(
        "java.util.concurrent.TimeoutException",
        () -> {
          CompletableFuture<HttpResponse<Void>> sent =
              http.sendAsync(
                  HttpRequest.newBuilder(pay().uri())
                      .POST(HttpRequest.BodyPublishers.noBody())
                      .build(),
                  HttpResponse.BodyHandlers.discarding());
          sent.get(300, TimeUnit.MILLISECONDS);
        });
  }
}
