package dev.mcpgate.webstack.review;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.mcp.Idempotent;
import dev.mcpgate.webstack.ToolExceptionsContract;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.reactivestreams.Publisher;
import org.springframework.ai.mcp.annotation.McpTool;
import org.springframework.ai.mcp.annotation.McpToolParam;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.security.config.web.server.ServerHttpSecurity;
import org.springframework.security.web.server.SecurityWebFilterChain;
import reactor.core.publisher.Flux;

/**
 * Review M. PublisherToolFailureReviewTest (gate-spring-boot-starter) on Spring AI 2.0.0's WebFlux
 * server: an async @McpTool method returning a Reactive Streams Publisher that is neither a Mono
 * nor a Flux is noted RETURNED when it returns, so its plain failure (nothing happened) fences the
 * key and the caller is told the outcome is unknown.
 */
class PublisherToolFailureOnWebFluxReviewTest {
  static final AtomicInteger RUNS = new AtomicInteger();

  public static class Tools {
    @McpTool(name = "mcp_cancel", description = "Cancel an order")
    @Idempotent
    public Publisher<String> cancel(@McpToolParam(description = "order") String orderId) {
      return subscriber -> {
        RUNS.incrementAndGet();
        Flux.<String>error(new IllegalArgumentException("no such order: " + orderId))
            .subscribe(subscriber);
      };
    }
  }

  @EnableAutoConfiguration
  public static class Server {
    @Bean
    SecurityWebFilterChain open(ServerHttpSecurity http) {
      return http.csrf(c -> c.disable())
          .authorizeExchange(a -> a.anyExchange().permitAll())
          .build();
    }

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
        new SpringApplicationBuilder(Server.class)
            .properties(
                "server.port=0",
                "spring.main.banner-mode=off",
                "spring.ai.mcp.server.protocol=" + protocol,
                "spring.ai.mcp.server.type=ASYNC",
                "mcpgate.store=memory",
                "mcpgate.tenant.constant=review",
                "mcpgate.tenant.sources=constant",
                "spring.autoconfigure.exclude="
                    + "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration")
            .run()) {
      List<CallToolResult> answers =
          ToolExceptionsContract.sameCallTwice(app, "mcp_cancel", "pub-" + protocol);
      assertThat(String.valueOf(answers.get(0).structuredContent()))
          .as("nothing ran: the caller must not be told the outcome is unknown: %s", answers)
          .doesNotContain("idempotency_outcome_unknown");
      assertThat(RUNS.get() - before).as("the plain failure released the key").isEqualTo(2);
    }
  }
}
