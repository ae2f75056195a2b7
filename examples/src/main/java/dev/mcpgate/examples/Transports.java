package dev.mcpgate.examples;

import dev.mcpgate.mcp.ExactNumbers;
import dev.mcpgate.mcp.KeySource;
import io.modelcontextprotocol.common.McpTransportContext;
import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.server.McpServer;
import io.modelcontextprotocol.server.McpServerFeatures.SyncToolSpecification;
import io.modelcontextprotocol.server.McpSyncServer;
import io.modelcontextprotocol.server.transport.HttpServletStreamableServerTransportProvider;
import io.modelcontextprotocol.server.transport.StdioServerTransportProvider;
import io.modelcontextprotocol.spec.McpSchema;
import java.io.IOException;
import java.io.InputStream;
import java.io.PipedInputStream;
import java.io.PipedOutputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.apache.catalina.Context;
import org.apache.catalina.LifecycleException;
import org.apache.catalina.LifecycleState;
import org.apache.catalina.Wrapper;
import org.apache.catalina.connector.Connector;
import org.apache.catalina.startup.Tomcat;

/** Serves the example's tools over stdio or Streamable HTTP. */
final class Transports {
  /** The server's JSON mapper: numbers read exactly, so the argument hash tells them apart. */
  static final McpJsonMapper JSON = ExactNumbers.jsonMapper();

  static final String SERVER_NAME = "mcpgate-example";

  /** Tomcat logs through java.util.logging; kept referenced so its level sticks. */
  private static final Logger TOMCAT_LOG = Logger.getLogger("org.apache");

  private Transports() {}

  private static McpSchema.ServerCapabilities capabilities() {
    return McpSchema.ServerCapabilities.builder().tools(true).build();
  }

  /**
   * Serves on this process's stdin and stdout. A {@link StdioGuard} answers lines that are not
   * JSON-RPC messages with an error and keeps serving.
   *
   * @param closed counted down when stdin reaches its end (the client went away)
   */
  static McpSyncServer stdio(List<SyncToolSpecification> tools, CountDownLatch closed)
      throws IOException {
    PipedOutputStream toSdk = new PipedOutputStream();
    InputStream sdkIn = new PipedInputStream(toSdk, 1 << 20);
    Thread guard =
        new Thread(
            () -> {
              try {
                new StdioGuard(JSON, System.out).forward(System.in, toSdk);
              } catch (IOException e) {
                System.err.println("mcpgate-example: stdin failed: " + e.getMessage());
              } finally {
                closed.countDown();
              }
            },
            "mcpgate-stdio-guard");
    guard.setDaemon(true);
    guard.start();
    return McpServer.sync(new StdioServerTransportProvider(JSON, sdkIn, System.out))
        .jsonMapper(JSON)
        .serverInfo(SERVER_NAME, "0.1.0")
        .capabilities(capabilities())
        .tools(tools)
        .requestTimeout(Duration.ofSeconds(60))
        .build();
  }

  /** A running HTTP server: its port, and how to stop it. */
  record Http(int port, Tomcat tomcat, McpSyncServer server, Path baseDir)
      implements AutoCloseable {
    @Override
    public void close() {
      server.close();
      try {
        tomcat.stop();
        tomcat.destroy();
      } catch (LifecycleException e) {
        throw new IllegalStateException(e);
      } finally {
        TempFiles.deleteRecursively(baseDir);
      }
    }
  }

  /**
   * Serves Streamable HTTP at {@code /mcp} on 127.0.0.1:port (0: any free port). The tenant of a
   * call is its {@code X-Tenant} header, put into the MCP transport context; in a real server it
   * would come from the authenticated request.
   */
  static Http http(int port, List<SyncToolSpecification> tools) {
    TOMCAT_LOG.setLevel(Level.SEVERE);
    HttpServletStreamableServerTransportProvider transport =
        HttpServletStreamableServerTransportProvider.builder()
            .jsonMapper(JSON)
            .mcpEndpoint("/mcp")
            .contextExtractor(
                request -> {
                  Map<String, Object> values = new HashMap<>();
                  List<String> tenants = Collections.list(request.getHeaders("X-Tenant"));
                  // a header sent twice is no tenant: the call is refused, never read by its
                  // first value (a client could add its own to the one a gateway sets)
                  if (tenants.size() == 1 && !tenants.get(0).isBlank()) {
                    values.put("tenant", tenants.get(0));
                  }
                  KeySource.copyHeader(
                      Collections.list(request.getHeaders(KeySource.HEADER_CONTEXT_KEY)), values);
                  return McpTransportContext.create(values);
                })
            .build();
    McpSyncServer server =
        McpServer.sync(transport)
            .jsonMapper(JSON)
            .serverInfo(SERVER_NAME, "0.1.0")
            .capabilities(capabilities())
            .tools(tools)
            .requestTimeout(Duration.ofSeconds(60))
            .build();
    Tomcat tomcat = new Tomcat();
    tomcat.setHostname("127.0.0.1");
    tomcat.setPort(port);
    Path baseDir;
    try {
      baseDir = Files.createTempDirectory("mcpgate-example-tomcat");
      baseDir.toFile().deleteOnExit(); // should Tomcat make it again after close()
    } catch (IOException e) {
      throw new UncheckedIOException("could not make Tomcat's work folder", e);
    }
    tomcat.setBaseDir(baseDir.toString());
    Context context = tomcat.addContext("", null);
    Wrapper wrapper = Tomcat.addServlet(context, "mcp", transport);
    wrapper.setAsyncSupported(true);
    context.addServletMappingDecoded("/*", "mcp");
    tomcat.getConnector().setProperty("address", "127.0.0.1");
    Http http = new Http(-1, tomcat, server, baseDir);
    try {
      tomcat.start();
    } catch (LifecycleException e) {
      close(http);
      throw new IllegalStateException("could not start the HTTP server on port " + port, e);
    }
    // a connector that cannot bind (the port is in use) is logged and left FAILED: Tomcat's
    // start() does not throw for it, and the server would serve nothing at port -1
    Connector connector = tomcat.getConnector();
    if (connector.getState() != LifecycleState.STARTED || connector.getLocalPort() <= 0) {
      close(http);
      throw new IllegalStateException(
          "could not start the HTTP server on port "
              + port
              + " (is something else listening on it?)");
    }
    return new Http(connector.getLocalPort(), tomcat, server, baseDir);
  }

  private static void close(Http http) {
    try {
      http.close();
    } catch (RuntimeException e) {
      // the failure to start is what the caller is told
    }
  }
}
