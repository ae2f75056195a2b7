package dev.mcpgate.nojdbc;

import dev.mcpgate.core.spi.IdempotencyStore;
import dev.mcpgate.mcp.Idempotent;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import io.modelcontextprotocol.spec.McpSchema.TextContent;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.springframework.ai.mcp.annotation.McpTool;
import org.springframework.ai.mcp.annotation.McpToolParam;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.web.SecurityFilterChain;

/**
 * A Spring AI MCP server on the in-memory store, for {@code StarterWithoutJdbcTest}, which loads it
 * in a class loader without gate-jdbc: it starts, calls its gated tool twice over Streamable HTTP,
 * and tells what it saw. Outside {@code dev.mcpgate.spring}, whose test servers scan their package
 * and would take this configuration in.
 */
@SpringBootConfiguration
@EnableAutoConfiguration
public class MemoryServer {
  static final AtomicInteger RUNS = new AtomicInteger();

  /** Open to all: Spring Security is on the tests' class path. */
  @Bean
  SecurityFilterChain open(HttpSecurity http) throws Exception {
    return http.csrf(c -> c.disable())
        .authorizeHttpRequests(a -> a.anyRequest().permitAll())
        .build();
  }

  @Bean
  Tools tools() {
    return new Tools();
  }

  /** The server's one tool. */
  public static class Tools {
    @McpTool(name = "send_mail", description = "Send a mail")
    @Idempotent
    public String send(@McpToolParam(description = "to whom") String to) {
      return "mail " + RUNS.incrementAndGet() + " to " + to;
    }
  }

  /**
   * Starts the server, calls its tool twice with one key, and stops it.
   *
   * @return the store's class name, then each answer's text and whether it was replayed
   */
  public static List<String> run() {
    // the JVM takes one URL stream handler factory; the tests' own Tomcat may have set it already
    org.apache.catalina.webresources.TomcatURLStreamHandlerFactory.disable();
    try (ConfigurableApplicationContext app =
        new SpringApplicationBuilder(MemoryServer.class)
            .properties(
                "server.port=0",
                "spring.main.banner-mode=off",
                "spring.ai.mcp.server.protocol=STREAMABLE",
                "mcpgate.store=memory",
                "mcpgate.tenant.constant=demo",
                "mcpgate.tenant.sources=constant")
            .run()) {
      List<String> seen = new ArrayList<>();
      seen.add(app.getBean(IdempotencyStore.class).getClass().getName());
      int port = ((WebServerApplicationContext) app).getWebServer().getPort();
      McpSyncClient client =
          McpClient.sync(
                  HttpClientStreamableHttpTransport.builder("http://127.0.0.1:" + port)
                      .endpoint("/mcp")
                      .build())
              .build();
      try {
        client.initialize();
        CallToolRequest call =
            new CallToolRequest("send_mail", Map.of("to", "ann", "idempotency_key", "k-1"));
        for (int i = 0; i < 2; i++) {
          CallToolResult result = client.callTool(call);
          seen.add(
              ((TextContent) result.content().get(0)).text()
                  + " replayed="
                  + (result.meta() != null
                      && Boolean.TRUE.equals(result.meta().get("dev.mcpgate/replayed"))));
        }
      } finally {
        client.closeGracefully();
      }
      return seen;
    }
  }
}
