package dev.mcpgate.spring.review;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.mcp.Idempotent;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.reactivestreams.Publisher;
import org.springframework.ai.mcp.annotation.McpTool;
import org.springframework.ai.mcp.annotation.McpToolParam;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import reactor.core.publisher.Flux;

/**
 * Review M. Spring AI's async @McpTool callback takes a method returning any Reactive Streams
 * {@code Publisher} (it reads it with {@code Mono.from}), not only a Mono or a Flux. ToolExceptions
 * follows only a Mono or a Flux: for another Publisher it notes RETURNED when the method returns
 * (before anything ran), so when the Publisher then fails with a plain exception (the order does
 * not exist: nothing happened) Spring AI's error result is taken for "an error after the method
 * returned" and the key is FENCED: the caller is told the outcome is unknown and the key is refused
 * for the retention (24 h), though nothing ran and a retry would be safe. The same happens to an
 * error CallToolResult the Publisher emits itself, which must release (docs).
 */
class PublisherToolFailureReviewTest {
  static final AtomicInteger RUNS = new AtomicInteger();

  public static class Tools {
    /** As a driver or client library that hands out a plain Publisher (not a Reactor type). */
    @McpTool(name = "cancel_order", description = "Cancel an order")
    @Idempotent
    public Publisher<String> cancel(@McpToolParam(description = "the order") String orderId) {
      return subscriber -> {
        RUNS.incrementAndGet();
        Flux.<String>error(new IllegalArgumentException("no such order: " + orderId))
            .subscribe(subscriber);
      };
    }
  }

  @EnableAutoConfiguration
  @Import(ReviewApps.OpenSecurity.class)
  public static class Server {
    @Bean
    Tools tools() {
      return new Tools();
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"STREAMABLE", "STATELESS"})
  void aPublishersPlainFailureReleasesTheKey(String protocol) {
    int before = RUNS.get();
    try (ConfigurableApplicationContext app =
        ReviewApps.memoryServer(
            Server.class,
            "spring.ai.mcp.server.type=ASYNC",
            "spring.ai.mcp.server.protocol=" + protocol)) {
      List<CallToolResult> answers =
          ReviewApps.sameCallTwice(
              app, "cancel_order", Map.of("orderId", "o-404"), "k-publisher-" + protocol);
      assertThat(String.valueOf(answers.get(0).structuredContent()))
          .as("nothing ran: the caller must not be told the outcome is unknown: %s", answers)
          .doesNotContain("idempotency_outcome_unknown");
      assertThat(RUNS.get() - before).as("the plain failure released the key").isEqualTo(2);
    }
  }
}
