package dev.mcpgate.client;

import dev.mcpgate.mcp.Pipe;
import io.modelcontextprotocol.client.McpAsyncClient;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.common.McpTransportContext;
import io.modelcontextprotocol.json.McpJsonDefaults;
import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.server.McpServer;
import io.modelcontextprotocol.server.McpServerFeatures.SyncToolSpecification;
import io.modelcontextprotocol.server.McpSyncServer;
import io.modelcontextprotocol.server.transport.HttpServletStreamableServerTransportProvider;
import io.modelcontextprotocol.server.transport.StdioServerTransportProvider;
import io.modelcontextprotocol.spec.McpClientTransport;
import io.modelcontextprotocol.spec.McpSchema;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.IntSupplier;
import java.util.stream.Stream;
import org.apache.catalina.Context;
import org.apache.catalina.Wrapper;
import org.apache.catalina.startup.Tomcat;

/**
 * A real MCP server with the given tools and a real SDK client (sync or async) connected to it
 * through a transport that loses answers: piped stdio, or Streamable HTTP (embedded Tomcat) behind
 * {@link LossyHttpProxy}.
 */
final class Servers {
  private Servers() {}

  enum Wire {
    STDIO,
    HTTP
  }

  enum Kind {
    SYNC,
    ASYNC
  }

  /**
   * A connected client, the way it calls, how many answers its transport lost, and how to make it
   * drop the tool definitions it cached.
   */
  record Connected(
      Caller caller, IntSupplier droppedAnswers, Runnable forgetTools, AutoCloseable closer)
      implements AutoCloseable {
    @Override
    public void close() throws Exception {
      closer.close();
    }
  }

  /** Calls an intent through {@link IdempotentCalls} or {@link AsyncIdempotentCalls}. */
  interface Caller {
    CallOutcome call(IntentKey key, String tool, Map<String, ?> arguments);
  }

  /**
   * @param requestTimeout the SDK client's request timeout: how long a lost stdio answer takes to
   *     notice (over HTTP at least 10 s, as a lost answer is a closed connection there)
   */
  static Connected connect(
      Wire wire,
      Kind kind,
      List<SyncToolSpecification> tools,
      McpJsonMapper serverJson,
      int dropsPerKey,
      Duration requestTimeout,
      RetryPolicy policy)
      throws Exception {
    if (wire == Wire.STDIO) {
      return stdio(kind, tools, serverJson, dropsPerKey, requestTimeout, policy);
    }
    // over HTTP a lost answer is a closed connection, seen at once: no short timeout is needed,
    // and a short one can fail the first requests of a busy machine
    Duration atLeast10s =
        requestTimeout.compareTo(Duration.ofSeconds(10)) < 0
            ? Duration.ofSeconds(10)
            : requestTimeout;
    return http(kind, tools, serverJson, dropsPerKey, atLeast10s, policy);
  }

  private static Connected stdio(
      Kind kind,
      List<SyncToolSpecification> tools,
      McpJsonMapper serverJson,
      int dropsPerKey,
      Duration requestTimeout,
      RetryPolicy policy) {
    Pipe toServer = new Pipe();
    Pipe toClient = new Pipe();
    McpSyncServer server =
        McpServer.sync(new StdioServerTransportProvider(serverJson, toServer.in, toClient.out))
            .jsonMapper(serverJson)
            .serverInfo("client-test", "1")
            .capabilities(McpSchema.ServerCapabilities.builder().tools(true).build())
            .tools(tools)
            .requestTimeout(Duration.ofSeconds(60))
            .build();
    LossyStdioClientTransport transport =
        new LossyStdioClientTransport(
            McpJsonDefaults.getMapper(), toClient.in, toServer.out, dropsPerKey);
    Connected c = client(kind, transport, requestTimeout, policy, transport.droppedAnswers::get);
    return new Connected(
        c.caller(),
        c.droppedAnswers(),
        c.forgetTools(),
        () -> {
          c.close();
          server.close();
        });
  }

  private static Connected http(
      Kind kind,
      List<SyncToolSpecification> tools,
      McpJsonMapper serverJson,
      int dropsPerKey,
      Duration requestTimeout,
      RetryPolicy policy)
      throws Exception {
    java.util.logging.Logger.getLogger("org.apache").setLevel(java.util.logging.Level.SEVERE);
    HttpServletStreamableServerTransportProvider provider =
        HttpServletStreamableServerTransportProvider.builder()
            .jsonMapper(serverJson)
            .mcpEndpoint("/mcp")
            .contextExtractor(
                request -> {
                  Map<String, Object> values = new HashMap<>();
                  String tenant = request.getHeader("X-Tenant");
                  if (tenant != null) {
                    values.put("tenant", tenant);
                  }
                  return McpTransportContext.create(values);
                })
            .build();
    McpSyncServer server =
        McpServer.sync(provider)
            .jsonMapper(serverJson)
            .serverInfo("client-test", "1")
            .capabilities(McpSchema.ServerCapabilities.builder().tools(true).build())
            .tools(tools)
            .requestTimeout(Duration.ofSeconds(60))
            .build();
    Tomcat tomcat = new Tomcat();
    tomcat.setPort(0);
    Path baseDir = Files.createTempDirectory("mcpgate-client-tomcat");
    tomcat.setBaseDir(baseDir.toString());
    Context context = tomcat.addContext("", null);
    Wrapper wrapper = Tomcat.addServlet(context, "mcp", provider);
    wrapper.setAsyncSupported(true);
    context.addServletMappingDecoded("/*", "mcp");
    tomcat.getConnector();
    tomcat.start();
    int port = tomcat.getConnector().getLocalPort();
    LossyHttpProxy proxy = new LossyHttpProxy(URI.create("http://127.0.0.1:" + port), dropsPerKey);
    HttpClientStreamableHttpTransport transport =
        HttpClientStreamableHttpTransport.builder("http://127.0.0.1:" + proxy.port())
            .endpoint("/mcp")
            .httpRequestCustomizer(
                (builder, method, uri, body, ctx) -> builder.header("X-Tenant", "acme"))
            .build();
    Connected c = client(kind, transport, requestTimeout, policy, proxy.droppedAnswers::get);
    return new Connected(
        c.caller(),
        c.droppedAnswers(),
        c.forgetTools(),
        () -> {
          c.close();
          proxy.close();
          server.close();
          tomcat.stop();
          tomcat.destroy();
          try (Stream<Path> paths = Files.walk(baseDir)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
              Files.deleteIfExists(p);
            }
          }
        });
  }

  private static Connected client(
      Kind kind,
      McpClientTransport transport,
      Duration requestTimeout,
      RetryPolicy policy,
      IntSupplier dropped) {
    if (kind == Kind.SYNC) {
      McpSyncClient client = McpClient.sync(transport).requestTimeout(requestTimeout).build();
      client.initialize();
      IdempotentCalls calls = IdempotentCalls.builder(client).retryPolicy(policy).build();
      return new Connected(calls::call, dropped, calls::forgetTools, client::close);
    }
    McpAsyncClient client = McpClient.async(transport).requestTimeout(requestTimeout).build();
    client.initialize().block(Duration.ofSeconds(30));
    AsyncIdempotentCalls calls = AsyncIdempotentCalls.builder(client).retryPolicy(policy).build();
    return new Connected(
        (key, tool, arguments) -> calls.call(key, tool, arguments).block(Duration.ofSeconds(120)),
        dropped,
        calls::forgetTools,
        () -> client.closeGracefully().block(Duration.ofSeconds(10)));
  }
}
