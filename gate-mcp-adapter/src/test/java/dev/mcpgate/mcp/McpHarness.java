package dev.mcpgate.mcp;

import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.common.McpTransportContext;
import io.modelcontextprotocol.json.McpJsonDefaults;
import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.server.McpAsyncServer;
import io.modelcontextprotocol.server.McpServer;
import io.modelcontextprotocol.server.McpServerFeatures;
import io.modelcontextprotocol.server.McpSyncServer;
import io.modelcontextprotocol.server.transport.HttpServletStreamableServerTransportProvider;
import io.modelcontextprotocol.server.transport.StdioServerTransportProvider;
import io.modelcontextprotocol.spec.McpSchema;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.apache.catalina.Context;
import org.apache.catalina.LifecycleException;
import org.apache.catalina.Wrapper;
import org.apache.catalina.startup.Tomcat;

/**
 * A real MCP server and real clients: over Streamable HTTP (embedded Tomcat) or piped stdio. Shared
 * with gate-testkit's tests through this module's test jar.
 */
public interface McpHarness extends AutoCloseable {

  /** Tomcat logs through java.util.logging; the tests want only its errors. */
  java.util.logging.Logger TOMCAT_LOG = quiet(java.util.logging.Logger.getLogger("org.apache"));

  private static java.util.logging.Logger quiet(java.util.logging.Logger logger) {
    logger.setLevel(java.util.logging.Level.SEVERE);
    return logger;
  }

  /**
   * @return a new initialized client; the tenant goes in an X-Tenant header (HTTP only)
   */
  McpSyncClient client(String tenant);

  /**
   * @param idempotencyKey read before each request: the Idempotency-Key header to send, or null
   * @return a new initialized client (HTTP only)
   */
  default McpSyncClient client(String tenant, Supplier<String> idempotencyKey) {
    throw new UnsupportedOperationException("headers are HTTP only");
  }

  @Override
  void close();

  static McpSchema.ServerCapabilities tools() {
    return McpSchema.ServerCapabilities.builder().tools(true).build();
  }

  /**
   * Streamable HTTP; the transport context carries the X-Tenant header as "tenant". The server
   * reads numbers exactly, as a gated server should ({@link ExactNumbers}).
   */
  static McpHarness http(
      List<McpServerFeatures.SyncToolSpecification> sync,
      List<McpServerFeatures.AsyncToolSpecification> async) {
    return http(sync, async, ExactNumbers.jsonMapper());
  }

  /** Like {@link #http(List, List)}, with the server (transport and builder) on {@code json}. */
  static McpHarness http(
      List<McpServerFeatures.SyncToolSpecification> sync,
      List<McpServerFeatures.AsyncToolSpecification> async,
      McpJsonMapper json) {
    HttpServletStreamableServerTransportProvider transport =
        HttpServletStreamableServerTransportProvider.builder()
            .jsonMapper(json)
            .mcpEndpoint("/mcp")
            .contextExtractor(
                request -> {
                  Map<String, Object> values = new HashMap<>();
                  String tenant = request.getHeader("X-Tenant");
                  if (tenant != null) {
                    values.put("tenant", tenant);
                  }
                  KeySource.copyHeader(
                      Collections.list(request.getHeaders(KeySource.HEADER_CONTEXT_KEY)), values);
                  return McpTransportContext.create(values);
                })
            .build();
    AutoCloseable server;
    if (async == null) {
      McpSyncServer s =
          McpServer.sync(transport)
              .jsonMapper(json)
              .serverInfo("gated-test", "1")
              .capabilities(tools())
              .tools(sync)
              .requestTimeout(Duration.ofSeconds(60))
              .build();
      server = s::close;
    } else {
      McpAsyncServer s =
          McpServer.async(transport)
              .jsonMapper(json)
              .serverInfo("gated-test", "1")
              .capabilities(tools())
              .tools(async)
              .requestTimeout(Duration.ofSeconds(60))
              .build();
      server = () -> s.close();
    }
    TOMCAT_LOG.fine("starting Tomcat");
    Tomcat tomcat = new Tomcat();
    tomcat.setPort(0);
    Path baseDir;
    try {
      baseDir = Files.createTempDirectory("mcpgate-tomcat");
      baseDir.toFile().deleteOnExit(); // should Tomcat make it again after close()
    } catch (java.io.IOException e) {
      throw new IllegalStateException(e);
    }
    tomcat.setBaseDir(baseDir.toString());
    Context context = tomcat.addContext("", null);
    Wrapper wrapper = Tomcat.addServlet(context, "mcp", transport);
    wrapper.setAsyncSupported(true);
    context.addServletMappingDecoded("/*", "mcp");
    tomcat.getConnector();
    try {
      tomcat.start();
    } catch (LifecycleException e) {
      throw new IllegalStateException(e);
    }
    int port = tomcat.getConnector().getLocalPort();
    List<McpSyncClient> clients = new ArrayList<>();
    return new McpHarness() {
      @Override
      public McpSyncClient client(String tenant) {
        return client(tenant, () -> null);
      }

      @Override
      public McpSyncClient client(String tenant, Supplier<String> idempotencyKey) {
        HttpClientStreamableHttpTransport clientTransport =
            HttpClientStreamableHttpTransport.builder("http://127.0.0.1:" + port)
                .endpoint("/mcp")
                .httpRequestCustomizer(
                    (builder, method, uri, body, ctx) -> {
                      if (tenant != null) {
                        builder.header("X-Tenant", tenant);
                      }
                      String key = idempotencyKey.get();
                      if (key != null) {
                        builder.header(KeySource.HEADER_CONTEXT_KEY, key);
                      }
                    })
                .build();
        McpSyncClient client =
            McpClient.sync(clientTransport).requestTimeout(Duration.ofSeconds(60)).build();
        client.initialize();
        clients.add(client);
        return client;
      }

      @Override
      public void close() {
        clients.forEach(McpSyncClient::close);
        try {
          server.close();
          tomcat.stop();
          tomcat.destroy();
          try (Stream<Path> paths = Files.walk(baseDir)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
              Files.deleteIfExists(p);
            }
          }
        } catch (Exception e) {
          throw new IllegalStateException(e);
        }
      }
    };
  }

  /**
   * stdio over in-process pipes: one server, one client session; the server reads numbers exactly,
   * as a gated server should ({@link ExactNumbers}).
   */
  static McpHarness stdio(List<McpServerFeatures.SyncToolSpecification> sync) {
    McpJsonMapper json = McpJsonDefaults.getMapper();
    McpJsonMapper serverJson = ExactNumbers.jsonMapper();
    Pipe toServer = new Pipe();
    Pipe toClient = new Pipe();
    StdioServerTransportProvider transport =
        new StdioServerTransportProvider(serverJson, toServer.in, toClient.out);
    McpSyncServer server =
        McpServer.sync(transport)
            .jsonMapper(serverJson)
            .serverInfo("gated-test", "1")
            .capabilities(tools())
            .tools(sync)
            .requestTimeout(Duration.ofSeconds(60))
            .build();
    McpSyncClient client =
        McpClient.sync(new PipedClientTransport(json, toClient.in, toServer.out))
            .requestTimeout(Duration.ofSeconds(60))
            .build();
    client.initialize();
    return new McpHarness() {
      @Override
      public McpSyncClient client(String tenant) {
        return client;
      }

      @Override
      public void close() {
        client.close();
        server.close();
      }
    };
  }
}
