package dev.mcpgate.quarkus.deployment;

import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import java.time.Duration;
import org.eclipse.microprofile.config.ConfigProvider;

/**
 * One MCP client of a test class to its Quarkus test application over Streamable HTTP (at {@code
 * quarkus.http.test-port}), made at its first use; {@link #close()} it after the class.
 */
public final class TestClient implements AutoCloseable {
  private McpSyncClient client;

  /** Returns the client, connected and initialized at the first call. */
  public synchronized McpSyncClient get() {
    if (client == null) {
      int port = ConfigProvider.getConfig().getValue("quarkus.http.test-port", Integer.class);
      client =
          McpClient.sync(
                  HttpClientStreamableHttpTransport.builder("http://127.0.0.1:" + port)
                      .endpoint("/mcp")
                      .build())
              .requestTimeout(Duration.ofSeconds(30))
              .build();
      client.initialize();
    }
    return client;
  }

  @Override
  public synchronized void close() {
    if (client != null) {
      client.closeGracefully();
      client = null;
    }
  }
}
