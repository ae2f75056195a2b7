package dev.mcpgate.spring.review;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.mcp.Idempotent;
import dev.mcpgate.mcp.KeySource;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.PipedInputStream;
import java.io.PipedOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.springframework.ai.mcp.annotation.McpTool;
import org.springframework.ai.mcp.annotation.McpToolParam;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * Review of ec4a19c / 993e486 (the key header in the transport context; a tool that cannot be gated
 * as declared stops the startup). On a stdio server no transport carries an HTTP header:
 * ToolSpecificationGating puts the header only in the contexts of HTTP transports whose extractor
 * it could wrap, and ignores WebMvcKeyHeader.install's answer. A tool keyed only by the
 * Idempotency-Key header is then refused idempotency_key_required on every call and never runs,
 * while the survey counts it gated; the server starts without a word. A natural key naming no
 * argument (993e486) and a WebFlux transport that cannot carry the tenant (spring-boot.md) stop the
 * startup; a header key no transport can carry does not.
 */
class HeaderKeyOnStdioReviewTest {

  @EnableAutoConfiguration
  public static class StdioServer {
    @McpTool(name = "send_mail", description = "Send a mail")
    @Idempotent(keySources = KeySource.HEADER)
    public String send(@McpToolParam(description = "to whom") String to) {
      return "mail to " + to;
    }
  }

  @Test
  void aHeaderKeyedToolOnAStdioServerStopsTheStartupOrCanBeCalled() throws Exception {
    InputStream in = System.in;
    PrintStream out = System.out;
    PipedOutputStream feed = new PipedOutputStream();
    PipedInputStream stdin = new PipedInputStream(feed, 1 << 16);
    ByteArrayOutputStream stdout = new ByteArrayOutputStream();
    System.setIn(stdin);
    System.setOut(new PrintStream(stdout, true, StandardCharsets.UTF_8));
    ConfigurableApplicationContext app;
    try {
      try {
        app =
            new SpringApplicationBuilder(StdioServer.class)
                .properties(
                    "spring.main.web-application-type=none",
                    "spring.main.banner-mode=off",
                    "spring.ai.mcp.server.stdio=true",
                    "mcpgate.store=memory",
                    "mcpgate.tenant.constant=review",
                    "mcpgate.tenant.sources=constant",
                    "spring.autoconfigure.exclude="
                        + "org.springframework.boot.jdbc.autoconfigure"
                        + ".DataSourceAutoConfiguration")
                .run();
      } catch (RuntimeException startupStopped) {
        // what is expected: the tool cannot be gated as declared, and the failure says why
        org.assertj.core.api.Assertions.assertThat(startupStopped)
            .hasStackTraceContaining("send_mail")
            .hasStackTraceContaining("Idempotency-Key HTTP header alone");
        return;
      }
      try (app) {
        String lines =
            "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":"
                + "{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},"
                + "\"clientInfo\":{\"name\":\"review\",\"version\":\"1\"}}}\n"
                + "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n"
                + "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":"
                + "{\"name\":\"send_mail\",\"arguments\":{\"to\":\"ann\"}}}\n";
        feed.write(lines.getBytes(StandardCharsets.UTF_8));
        feed.flush();
        long until = System.nanoTime() + 15_000_000_000L;
        while (!stdout.toString(StandardCharsets.UTF_8).contains("\"id\":2")
            && System.nanoTime() < until) {
          Thread.sleep(50);
        }
        String answers = stdout.toString(StandardCharsets.UTF_8);
        assertThat(answers).as("the server answered the call").contains("\"id\":2");
        assertThat(answers)
            .as("the server started, and the header-keyed tool can never be called on stdio")
            .doesNotContain("idempotency_key_required");
      }
    } finally {
      feed.close();
      System.setIn(in);
      System.setOut(out);
    }
  }
}
