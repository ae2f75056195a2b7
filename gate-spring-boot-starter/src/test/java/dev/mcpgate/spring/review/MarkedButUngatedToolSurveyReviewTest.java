package dev.mcpgate.spring.review;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.modelcontextprotocol.server.McpServerFeatures.SyncToolSpecification;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;

/**
 * Review of 993e486 (ToolSpecificationGating: "the starter counts a tool the application gated
 * through McpGate as gated and never wraps it twice"). What it checks is only that the tool's
 * {@code _meta} holds the key {@code dev.mcpgate/idempotency}: a mark in the listed definition, not
 * the handler. A tool definition copied from a gated one (a proxy that re-serves the tools a gated
 * server lists, _meta and all, or a spec rebuilt from a gated spec's tool with a new handler)
 * carries the mark with a plain handler: the survey counts it gated, and
 * mcpgate.require-gated-writes=true lets the server start with an ungated write tool.
 */
class MarkedButUngatedToolSurveyReviewTest {

  @EnableAutoConfiguration
  public static class Proxy {
    /**
     * A write tool whose definition came from a gated server's tools/list; its handler is plain.
     */
    @Bean
    List<SyncToolSpecification> copiedTools() {
      McpSchema.Tool copied =
          McpSchema.Tool.builder("refund_order", Map.of("type", "object"))
              .description("Refund an order.")
              .meta(Map.of("dev.mcpgate/idempotency", Map.of("key_sources", List.of("argument"))))
              .build();
      return List.of(
          SyncToolSpecification.builder()
              .tool(copied)
              .callHandler(
                  (exchange, request) ->
                      CallToolResult.builder().addTextContent("refunded").build())
              .build());
    }
  }

  @Test
  void aToolWhoseHandlerIsNotGatedIsNotCountedGated() {
    assertThatThrownBy(
            () -> {
              try (ConfigurableApplicationContext app =
                  ReviewApps.memoryServer(Proxy.class, "mcpgate.require-gated-writes=true")) {
                app.getBean(Proxy.class);
              }
            })
        .as("refund_order runs on every call, ungated")
        .hasStackTraceContaining("refund_order");
  }
}
