package dev.mcpgate.webstack;

import dev.mcpgate.core.OutcomeUnknownException;
import dev.mcpgate.mcp.Idempotent;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.ai.mcp.annotation.McpTool;
import org.springframework.ai.mcp.annotation.McpToolParam;
import org.springframework.ai.tool.ToolCallbackProvider;
import org.springframework.ai.tool.annotation.Tool;
import org.springframework.ai.tool.annotation.ToolParam;
import org.springframework.ai.tool.method.MethodToolCallbackProvider;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import reactor.core.publisher.Mono;

/**
 * Review M, on each web stack: ToolExceptions on SYNC, ASYNC, STATELESS sync and STATELESS async
 * servers, @McpTool methods and @Tool callbacks: the same call is sent twice with the same _meta
 * key, and the effects are counted. An unknown outcome (thrown, or a Mono failing later on another
 * scheduler) and an unconvertible value after the effect must fence (1 effect, the retry told
 * idempotency_outcome_unknown); a plain exception must release (the retry runs again). Run on
 * WebMVC by the starter's {@code ToolExceptionsOnWebMvcReviewTest} and on WebFlux by
 * gate-spring-boot-starter-webflux-tests' {@code ToolExceptionsOnWebFluxReviewTest}.
 */
public abstract class ToolExceptionsContract {
  /**
   * @return a configuration class that lets every request in, for the stack's security
   */
  protected abstract Class<?> openSecurity();

  static final Map<String, AtomicInteger> RUNS = new ConcurrentHashMap<>();

  static void ran(String tool) {
    RUNS.computeIfAbsent(tool, t -> new AtomicInteger()).incrementAndGet();
  }

  /** Refunded; the receipt cannot be serialized (a lazy association read after the session). */
  public static class Refund {
    public String getReceipt() {
      throw new IllegalStateException("could not initialize proxy - no Session");
    }
  }

  public static class SyncMcpTools {
    @McpTool(name = "mcp_unknown", description = "Refund")
    @Idempotent
    public String unknown(@McpToolParam(description = "order") String orderId) {
      ran("mcp_unknown");
      throw new OutcomeUnknownException("the provider timed out after the request");
    }

    @McpTool(name = "mcp_unconvertible", description = "Refund")
    @Idempotent
    public Refund unconvertible(@McpToolParam(description = "order") String orderId) {
      ran("mcp_unconvertible");
      return new Refund();
    }

    @McpTool(name = "mcp_plain", description = "Refund")
    @Idempotent
    public String plain(@McpToolParam(description = "order") String orderId) {
      ran("mcp_plain");
      throw new IllegalArgumentException("no such order");
    }
  }

  public static class AsyncMcpTools {
    @McpTool(name = "mcp_unknown", description = "Refund")
    @Idempotent
    public Mono<String> unknown(@McpToolParam(description = "order") String orderId) {
      ran("mcp_unknown");
      throw new OutcomeUnknownException("the provider timed out after the request");
    }

    @McpTool(name = "mcp_unknown_later", description = "Refund")
    @Idempotent
    public Mono<String> unknownLater(@McpToolParam(description = "order") String orderId) {
      return Mono.delay(Duration.ofMillis(50))
          .doOnNext(x -> ran("mcp_unknown_later"))
          .then(Mono.error(new OutcomeUnknownException("the provider timed out")));
    }

    @McpTool(name = "mcp_unconvertible", description = "Refund")
    @Idempotent
    public Mono<Refund> unconvertible(@McpToolParam(description = "order") String orderId) {
      return Mono.delay(Duration.ofMillis(20))
          .map(
              x -> {
                ran("mcp_unconvertible");
                return new Refund();
              });
    }

    @McpTool(name = "mcp_plain", description = "Refund")
    @Idempotent
    public Mono<String> plain(@McpToolParam(description = "order") String orderId) {
      return Mono.delay(Duration.ofMillis(20))
          .doOnNext(x -> ran("mcp_plain"))
          .then(Mono.error(new IllegalArgumentException("no such order")));
    }

    @McpTool(name = "mcp_result_unknown_later", description = "Refund")
    @Idempotent
    public Mono<io.modelcontextprotocol.spec.McpSchema.CallToolResult> resultUnknownLater(
        @McpToolParam(description = "order") String orderId) {
      return Mono.delay(Duration.ofMillis(20))
          .doOnNext(x -> ran("mcp_result_unknown_later"))
          .then(Mono.error(new OutcomeUnknownException("the provider timed out")));
    }

    @McpTool(name = "mcp_flux_unknown_later", description = "Refund")
    @Idempotent
    public reactor.core.publisher.Flux<String> fluxUnknownLater(
        @McpToolParam(description = "order") String orderId) {
      return Mono.delay(Duration.ofMillis(20))
          .doOnNext(x -> ran("mcp_flux_unknown_later"))
          .thenMany(reactor.core.publisher.Flux.error(new OutcomeUnknownException("timed out")));
    }

    @McpTool(name = "mcp_reactor_timeout", description = "Refund")
    @Idempotent
    public Mono<String> reactorTimeout(@McpToolParam(description = "order") String orderId) {
      return Mono.fromRunnable(() -> ran("mcp_reactor_timeout"))
          .then(Mono.delay(Duration.ofSeconds(5)))
          .map(x -> "refunded")
          .timeout(Duration.ofMillis(50));
    }

    @McpTool(name = "mcp_void_unknown", description = "Refund")
    @Idempotent
    public Mono<Void> voidUnknown(@McpToolParam(description = "order") String orderId) {
      return Mono.delay(Duration.ofMillis(20))
          .doOnNext(x -> ran("mcp_void_unknown"))
          .then(Mono.error(new OutcomeUnknownException("timed out")));
    }

    @McpTool(name = "mcp_own_error_result", description = "Refund")
    @Idempotent
    public Mono<io.modelcontextprotocol.spec.McpSchema.CallToolResult> ownError(
        @McpToolParam(description = "order") String orderId) {
      return Mono.delay(Duration.ofMillis(20))
          .doOnNext(x -> ran("mcp_own_error_result"))
          .map(
              x ->
                  io.modelcontextprotocol.spec.McpSchema.CallToolResult.builder()
                      .isError(true)
                      .addTextContent("card declined")
                      .build());
    }

    @McpTool(name = "mcp_flux_plain", description = "Refund")
    @Idempotent
    public reactor.core.publisher.Flux<String> fluxPlain(
        @McpToolParam(description = "order") String orderId) {
      return Mono.delay(Duration.ofMillis(20))
          .doOnNext(x -> ran("mcp_flux_plain"))
          .thenMany(reactor.core.publisher.Flux.error(new IllegalArgumentException("no order")));
    }

    @McpTool(name = "mcp_publisher_plain", description = "Refund")
    @Idempotent
    public org.reactivestreams.Publisher<String> publisherPlain(
        @McpToolParam(description = "order") String orderId) {
      return subscriber -> {
        ran("mcp_publisher_plain");
        reactor.core.publisher.Flux.<String>error(new IllegalArgumentException("no such order"))
            .subscribe(subscriber);
      };
    }
  }

  public static class CallbackTools {
    @Tool(name = "cb_unknown", description = "Refund")
    @Idempotent
    public String unknown(@ToolParam(description = "order") String orderId) {
      ran("cb_unknown");
      throw new OutcomeUnknownException("the provider timed out after the request");
    }

    @Tool(name = "cb_unconvertible", description = "Refund")
    @Idempotent
    public Refund unconvertible(@ToolParam(description = "order") String orderId) {
      ran("cb_unconvertible");
      return new Refund();
    }

    @Tool(name = "cb_plain", description = "Refund")
    @Idempotent
    public String plain(@ToolParam(description = "order") String orderId) {
      ran("cb_plain");
      throw new IllegalArgumentException("no such order");
    }
  }

  @EnableAutoConfiguration
  public static class Server {
    @Bean
    CallbackTools callbackTools() {
      return new CallbackTools();
    }

    @Bean
    ToolCallbackProvider callbacks(CallbackTools tools) {
      return MethodToolCallbackProvider.builder().toolObjects(tools).build();
    }
  }

  public static class SyncConfig {
    @Bean
    SyncMcpTools syncMcpTools() {
      return new SyncMcpTools();
    }
  }

  public static class AsyncConfig {
    @Bean
    AsyncMcpTools asyncMcpTools() {
      return new AsyncMcpTools();
    }
  }

  @ParameterizedTest
  @ValueSource(
      strings = {"SYNC/STREAMABLE", "ASYNC/STREAMABLE", "SYNC/STATELESS", "ASYNC/STATELESS"})
  void unknownOutcomesFenceAndPlainFailuresRelease(String stack) {
    String type = stack.split("/")[0];
    String protocol = stack.split("/")[1];
    List<String> fencing =
        new ArrayList<>(
            List.of("mcp_unknown", "mcp_unconvertible", "cb_unknown", "cb_unconvertible"));
    if (type.equals("ASYNC")) {
      fencing.addAll(
          List.of(
              "mcp_unknown_later",
              "mcp_result_unknown_later",
              "mcp_flux_unknown_later",
              "mcp_reactor_timeout",
              "mcp_void_unknown"));
    }
    List<String> releasing = new ArrayList<>(List.of("mcp_plain", "cb_plain"));
    if (type.equals("ASYNC")) {
      releasing.addAll(List.of("mcp_own_error_result", "mcp_flux_plain"));
    }
    SoftAssertions soft = new SoftAssertions();
    try (ConfigurableApplicationContext app =
        new SpringApplicationBuilder(
                Server.class,
                openSecurity(),
                type.equals("ASYNC") ? AsyncConfig.class : SyncConfig.class)
            .properties(
                "server.port=0",
                "spring.main.banner-mode=off",
                "spring.ai.mcp.server.protocol=" + protocol,
                "spring.ai.mcp.server.type=" + type,
                "mcpgate.store=memory",
                "mcpgate.tenant.constant=review",
                "mcpgate.tenant.sources=constant",
                "spring.autoconfigure.exclude="
                    + "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration")
            .run()) {
      for (String tool : fencing) {
        List<CallToolResult> answers = sameCallTwice(app, tool, stack);
        soft.assertThat(runs(tool))
            .as("%s %s: effects; first=%s retry=%s", stack, tool, answers.get(0), answers.get(1))
            .isEqualTo(1);
        soft.assertThat(String.valueOf(answers.get(1).structuredContent()))
            .as("%s %s: the retry is told the outcome is unknown", stack, tool)
            .contains("idempotency_outcome_unknown");
      }
      for (String tool : releasing) {
        List<CallToolResult> answers = sameCallTwice(app, tool, stack);
        soft.assertThat(runs(tool))
            .as(
                "%s %s: a plain failure releases; first=%s retry=%s",
                stack, tool, answers.get(0), answers.get(1))
            .isEqualTo(2);
      }
    }
    soft.assertAll();
  }

  private static int runs(String tool) {
    AtomicInteger n = RUNS.remove(tool);
    return n == null ? 0 : n.get();
  }

  public static List<CallToolResult> sameCallTwice(
      ConfigurableApplicationContext app, String tool, String stack) {
    int port = ((WebServerApplicationContext) app).getWebServer().getPort();
    McpSyncClient client =
        McpClient.sync(
                HttpClientStreamableHttpTransport.builder("http://127.0.0.1:" + port)
                    .endpoint("/mcp")
                    .build())
            .requestTimeout(Duration.ofSeconds(20))
            .build();
    client.initialize();
    try {
      CallToolRequest call =
          CallToolRequest.builder()
              .name(tool)
              .arguments(Map.of("orderId", "o-1"))
              .meta(Map.of("dev.mcpgate/idempotency-key", "k-" + tool + "-" + stack))
              .build();
      CallToolResult first = client.callTool(call);
      return List.of(first, client.callTool(call));
    } finally {
      client.closeGracefully();
    }
  }
}
