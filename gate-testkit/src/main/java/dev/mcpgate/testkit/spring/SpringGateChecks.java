package dev.mcpgate.testkit.spring;

import static java.util.Objects.requireNonNull;

import dev.mcpgate.testkit.GateChecks;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.springframework.context.ApplicationContext;
import org.springframework.core.env.Environment;

/**
 * The kit's checks for a running Spring Boot application with the MCP Gate starter: connects a
 * client to the application's MCP endpoint (Streamable HTTP or stateless, on {@code
 * local.server.port}) and counts the tools listed in {@code mcpgate.safe-tools} as declared safe.
 * Used by {@code @McpGateChecks} when the server under test is an {@link ApplicationContext} (an
 * {@code @McpServerUnderTest} field, or the context of a {@code @SpringBootTest(webEnvironment =
 * RANDOM_PORT)}); callable directly too.
 */
public final class SpringGateChecks {
  private SpringGateChecks() {}

  /**
   * @param context a running web application context
   * @param tenant sent in {@code mcpgate.tenant.header} when the application sets it
   * @return checks through a new client, which the caller closes ({@code checks.client()})
   */
  public static GateChecks of(ApplicationContext context, String tenant) {
    requireNonNull(context, "context must not be null");
    return GateChecks.of(connect(context, tenant)).safeTools(safeTools(context.getEnvironment()));
  }

  /**
   * @param context a running web application context
   * @param tenant sent in {@code mcpgate.tenant.header} when the application sets it
   * @return an initialized client of the application's MCP endpoint
   */
  public static McpSyncClient connect(ApplicationContext context, String tenant) {
    Environment env = context.getEnvironment();
    String port = env.getProperty("local.server.port");
    if (port == null) {
      throw new IllegalStateException(
          "the application context has no local.server.port: start"
              + " it with a web server (@SpringBootTest(webEnvironment = RANDOM_PORT), or"
              + " server.port=0)");
    }
    String contextPath = env.getProperty("server.servlet.context-path", "");
    String endpoint =
        env.getProperty(
            "spring.ai.mcp.server.streamable-http.mcp-endpoint",
            env.getProperty("spring.ai.mcp.server.stateless.mcp-endpoint", "/mcp"));
    String header = env.getProperty("mcpgate.tenant.header");
    HttpClientStreamableHttpTransport transport =
        HttpClientStreamableHttpTransport.builder("http://127.0.0.1:" + port)
            .endpoint(contextPath + endpoint)
            .httpRequestCustomizer(
                (builder, method, uri, body, ctx) -> {
                  if (header != null && !header.isBlank() && tenant != null) {
                    builder.header(header, tenant);
                  }
                })
            .build();
    McpSyncClient client = McpClient.sync(transport).requestTimeout(Duration.ofSeconds(60)).build();
    client.initialize();
    return client;
  }

  /** {@code mcpgate.safe-tools}, as a comma-separated value or as an indexed list. */
  static List<String> safeTools(Environment env) {
    List<String> tools = new ArrayList<>();
    String joined = env.getProperty("mcpgate.safe-tools");
    if (joined != null) {
      for (String t : joined.split(",")) {
        if (!t.isBlank()) {
          tools.add(t.strip());
        }
      }
    }
    for (int i = 0; ; i++) {
      String t = env.getProperty("mcpgate.safe-tools[" + i + "]");
      if (t == null) {
        break;
      }
      tools.add(t.strip());
    }
    return tools;
  }
}
