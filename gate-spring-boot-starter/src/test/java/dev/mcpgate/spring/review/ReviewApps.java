package dev.mcpgate.spring.review;

import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import java.util.ArrayList;
import java.util.List;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

/** The review tests' servers: Streamable HTTP on a free port, the memory store, one tenant. */
final class ReviewApps {
  private ReviewApps() {}

  /** Starts {@code server} with the review settings and {@code more} properties. */
  static ConfigurableApplicationContext memoryServer(Class<?> server, String... more) {
    org.apache.catalina.webresources.TomcatURLStreamHandlerFactory.disable();
    List<String> properties =
        new ArrayList<>(
            List.of(
                "server.port=0",
                "spring.main.banner-mode=off",
                "spring.ai.mcp.server.protocol=STREAMABLE",
                "mcpgate.store=memory",
                "mcpgate.tenant.constant=review",
                "mcpgate.tenant.sources=constant",
                "spring.autoconfigure.exclude="
                    + "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration"));
    properties.addAll(List.of(more));
    return new SpringApplicationBuilder(server).properties(properties.toArray(String[]::new)).run();
  }

  /** An initialized client of {@code app}'s MCP endpoint; close it gracefully. */
  static McpSyncClient client(ConfigurableApplicationContext app) {
    int port = ((WebServerApplicationContext) app).getWebServer().getPort();
    McpSyncClient client =
        McpClient.sync(
                HttpClientStreamableHttpTransport.builder("http://127.0.0.1:" + port)
                    .endpoint("/mcp")
                    .build())
            .build();
    client.initialize();
    return client;
  }
}
