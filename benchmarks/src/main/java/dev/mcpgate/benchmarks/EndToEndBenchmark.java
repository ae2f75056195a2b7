package dev.mcpgate.benchmarks;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.mcpgate.core.GateSettings;
import dev.mcpgate.core.IdempotencyGate;
import dev.mcpgate.core.Slf4jGateListener;
import dev.mcpgate.core.memory.InMemoryIdempotencyStore;
import dev.mcpgate.core.spi.IdempotencyStore;
import dev.mcpgate.jdbc.JdbcAuditSink;
import dev.mcpgate.jdbc.JdbcIdempotencyStore;
import dev.mcpgate.mcp.ExactNumbers;
import dev.mcpgate.mcp.McpGate;
import dev.mcpgate.mcp.TenantResolver;
import dev.mcpgate.mcp.ToolPolicy;
import dev.mcpgate.redis.RedisIdempotencyStore;
import io.lettuce.core.RedisURI;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.client.transport.ServerParameters;
import io.modelcontextprotocol.client.transport.StdioClientTransport;
import io.modelcontextprotocol.common.McpTransportContext;
import io.modelcontextprotocol.json.McpJsonDefaults;
import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.server.McpServer;
import io.modelcontextprotocol.server.McpServerFeatures.SyncToolSpecification;
import io.modelcontextprotocol.server.McpStatelessServerFeatures;
import io.modelcontextprotocol.server.McpSyncServer;
import io.modelcontextprotocol.server.transport.HttpServletStreamableServerTransportProvider;
import io.modelcontextprotocol.server.transport.StdioServerTransportProvider;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import io.modelcontextprotocol.spec.McpSchema.ServerCapabilities;
import io.modelcontextprotocol.spec.McpSchema.Tool;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.apache.catalina.Context;
import org.apache.catalina.Wrapper;
import org.apache.catalina.startup.Tomcat;

/**
 * The cost of a tool call, end to end: the SDK's sync client against an in-process MCP server over
 * Streamable HTTP (embedded Tomcat on a free loopback port), and over stdio (a child JVM on real
 * pipes, the SDK's stdio client and server transports). One client, calls one after another; per
 * scenario a warm-up, then interleaved rounds; each call timed with {@code System.nanoTime}. Prints
 * calls/s, p50, p99 and the ratio of p50 to the ungated no-op of the same transport.
 *
 * <p>Tools: a no-op (returns one text content) ungated and gated on the in-memory store, PostgreSQL
 * and Redis (the last two when reachable); a tool doing one INSERT on PostgreSQL and on MariaDB,
 * ungated (auto-committed), gated transactionally ({@code gateTransactional} over the store's
 * {@code transactions()}: the INSERT commits with the stored result) and in single-commit mode
 * ({@code gateSingleCommit} over {@code singleCommit()}: the claim, the INSERT and the result in
 * one commit). Gated calls: fresh (a new key each call) and replay (one key). Besides the ratio to
 * the ungated no-op, a gated INSERT's p50 is given as a ratio to the same INSERT ungated.
 * Diagnostics of a replay: the in-memory store with the SLF4J listener, with the JDBC audit sink
 * (an H2 file), with both, and the example server's configuration (claims, audit in one H2 file,
 * the listener on); the ungated no-op sent a key it ignores, and spinning 1, 4 or 20 µs before it
 * answers (a handler's own work, without the gate); then the gate alone, in process, with no
 * transport, and the JSON read-back of a stored result. After a stdio run, the stdio server's own
 * p50 and p90 of each tool's handler (from its call to its return, inside the server).
 *
 * <pre>
 * ./mvnw -q -pl benchmarks -am package -DskipTests
 * java -cp benchmarks/target/benchmarks.jar dev.mcpgate.benchmarks.EndToEndBenchmark \
 *     [--calls 2000] [--warmup 300] [--rounds 10] [--transports http,stdio] [--tools noop_mem,...]
 *     [--stdio-jvm "-Xmx512m -XX:+UseParallelGC"]
 * </pre>
 *
 * <p>{@code --tools} keeps the scenarios of the tools named (the ungated no-op always runs). {@code
 * --stdio-jvm} gives the stdio server's JVM options, split at spaces. Its stdout carries the
 * JSON-RPC stream, so nothing else may write there: to profile it, start a flight recording with
 * {@code jcmd <pid> JFR.start} once it runs ({@code -XX:StartFlightRecording} prints its start to
 * stdout whatever {@code -Xlog} says).
 *
 * <p>PostgreSQL: {@code MCPGATE_TEST_POSTGRES_URL}, or {@code
 * jdbc:postgresql://127.0.0.1:5432/test?user=postgres}; MariaDB: {@code MCPGATE_TEST_MARIADB_URL},
 * or {@code jdbc:mariadb://127.0.0.1:3306/test?user=root&password=}; Redis: {@code
 * MCPGATE_TEST_REDIS_URL} or {@code redis://127.0.0.1:6379}. Each is skipped when not reachable.
 */
public final class EndToEndBenchmark {
  private static final String CLAIMS_TABLE = "bench_e2e_claims";
  private static final String ORDERS_TABLE = "bench_e2e_orders";
  private static final Duration RETENTION = Duration.ofMinutes(30);

  /** Tomcat logs through java.util.logging: only its errors (held, so that the level stays). */
  private static final java.util.logging.Logger TOMCAT_LOG =
      java.util.logging.Logger.getLogger("org.apache");

  private EndToEndBenchmark() {}

  public static void main(String[] args) throws Exception {
    TOMCAT_LOG.setLevel(java.util.logging.Level.SEVERE);
    if (args.length > 0 && args[0].equals("--serve-stdio")) {
      serveStdio(args);
      return;
    }
    Map<String, String> options = options(args);
    int calls = Integer.parseInt(options.getOrDefault("calls", "2000"));
    int warmup = Integer.parseInt(options.getOrDefault("warmup", "300"));
    int rounds = Integer.parseInt(options.getOrDefault("rounds", "10"));
    List<String> transports = List.of(options.getOrDefault("transports", "http,stdio").split(","));
    String pg =
        env("MCPGATE_TEST_POSTGRES_URL", "jdbc:postgresql://127.0.0.1:5432/test?user=postgres");
    String mariadb =
        env("MCPGATE_TEST_MARIADB_URL", "jdbc:mariadb://127.0.0.1:3306/test?user=root&password=");
    String redis = env("MCPGATE_TEST_REDIS_URL", "redis://127.0.0.1:6379");
    if (!reachable(URI.create(pg.substring("jdbc:".length())), 5432)) {
      System.out.println("PostgreSQL not reachable at " + pg + ": skipped");
      pg = null;
    }
    if (!reachable(URI.create(mariadb.substring("jdbc:".length())), 3306)) {
      System.out.println("MariaDB not reachable at " + mariadb + ": skipped");
      mariadb = null;
    }
    if (!reachable(URI.create(redis), 6379)) {
      System.out.println("Redis not reachable at " + redis + ": skipped");
      redis = null;
    }
    Path scratch = Files.createTempDirectory("mcpgate-e2e");
    List<Scenario> scenarios = scenarios(pg != null, mariadb != null, redis != null);
    if (options.containsKey("tools")) { // the ungated no-op stays: it is every ratio's base
      List<String> tools = List.of(options.get("tools").split(","));
      scenarios.removeIf(s -> !s.tool().equals("noop") && !tools.contains(s.tool()));
    }
    System.out.printf(
        Locale.ROOT,
        "%d calls per scenario in %d interleaved rounds, %d warm-up"
            + " calls each; %d cores, Java %s%n",
        calls,
        rounds,
        warmup,
        Runtime.getRuntime().availableProcessors(),
        System.getProperty("java.version"));
    List<Row> rows = new ArrayList<>();
    try {
      if (transports.contains("http")) {
        try (Backends backends = new Backends(pg, mariadb, redis, scratch.resolve("http"));
            HttpServer server = new HttpServer(backends.tools())) {
          McpSyncClient client = server.client();
          rows.addAll(run("http", client, scenarios, calls, warmup, rounds));
          client.close();
          inProcess(backends, 5000, 1000);
        }
      }
      if (transports.contains("stdio")) {
        List<String> jvm =
            options.containsKey("stdio-jvm")
                ? List.of(options.get("stdio-jvm").trim().split(" +"))
                : List.of();
        McpSyncClient client = stdioClient(jvm, pg, mariadb, redis, scratch.resolve("stdio"));
        try {
          rows.addAll(run("stdio", client, scenarios, calls, warmup, rounds));
        } finally {
          // close() only starts the transport's close, and the exit below would cut it short
          client.closeGracefully(); // ends the server's process, waiting up to 10 s
        }
        Path times = scratch.resolve(HANDLER_TIMES);
        if (Files.exists(times)) {
          System.out.println();
          System.out.println("inside the stdio server, each tool's handler, warm-up included:");
          System.out.println("| tool | calls | p50 µs | p90 µs |");
          System.out.println("|---|---|---|---|");
          System.out.print(Files.readString(times));
        }
      }
    } finally {
      deleteTree(scratch);
    }
    print(rows);
    System.exit(0); // the HTTP client's and Tomcat's leftover threads
  }

  // ---------------------------------------------------------------- the server's side

  /** The stores, gates and tools of one server (the HTTP one here, the stdio one in the child). */
  static final class Backends implements AutoCloseable {
    final List<SyncToolSpecification> tools = new ArrayList<>();

    /** Gated no-op tools by name, in the stateless form, for the in-process measure. */
    final Map<String, McpStatelessServerFeatures.SyncToolSpecification> inProcess =
        new LinkedHashMap<>();

    private final List<AutoCloseable> closeables = new ArrayList<>();
    private final McpJsonMapper json = ExactNumbers.jsonMapper();
    private final ToolPolicy policy =
        ToolPolicy.builder().settings(GateSettings.builder().retention(RETENTION).build()).build();

    Backends(String pg, String mariadb, String redis, Path h2Dir) throws Exception {
      Files.createDirectories(h2Dir);
      // the example server's business database: claims and audit in one H2 file
      HikariDataSource h2 = pool("jdbc:h2:file:" + h2Dir.resolve("db").toAbsolutePath(), 4);
      JdbcAuditSink audit = JdbcAuditSink.builder(h2).createSchemaIfMissing(true).build();
      closeables.add(audit);
      tools.add(noop("noop"));
      tools.add(busy("noop_busy1", 1_000));
      tools.add(busy("noop_busy4", 4_000)); // the gate's own work in process, about 4 µs
      tools.add(busy("noop_busy20", 20_000));
      gatedNoop("noop_mem", InMemoryIdempotencyStore.create(), false, null);
      gatedNoop("noop_mem_listener", InMemoryIdempotencyStore.create(), true, null);
      gatedNoop("noop_mem_audit", InMemoryIdempotencyStore.create(), false, audit);
      gatedNoop("noop_mem_listener_audit", InMemoryIdempotencyStore.create(), true, audit);
      gatedNoop(
          "noop_h2_example",
          JdbcIdempotencyStore.builder(h2)
              .tableName(CLAIMS_TABLE)
              .createSchemaIfMissing(true)
              .build(),
          true,
          audit);
      gatedNoop(
          "noop_h2_no_audit",
          JdbcIdempotencyStore.builder(h2)
              .tableName(CLAIMS_TABLE + "_b")
              .createSchemaIfMissing(true)
              .build(),
          true,
          null);
      if (pg != null) {
        JdbcIdempotencyStore store = insertTools("pg", pg);
        gatedNoop("noop_pg", store, false, null);
      }
      if (mariadb != null) {
        insertTools("mariadb", mariadb);
      }
      if (redis != null) {
        RedisIdempotencyStore store =
            RedisIdempotencyStore.builder(RedisURI.create(redis))
                .keyPrefix("mcpgate-e2e:" + UUID.randomUUID() + ":")
                .build();
        closeables.add(store);
        gatedNoop("noop_redis", store, false, null);
      }
    }

    List<SyncToolSpecification> tools() {
      return tools;
    }

    /**
     * The one-INSERT tool on one database, ungated ({@code insert_<db>}, auto-committed), gated
     * transactionally ({@code insert_<db>_tx}) and in single-commit mode ({@code insert_<db>_sc});
     * returns the claims store.
     */
    private JdbcIdempotencyStore insertTools(String db, String url) throws Exception {
      HikariDataSource pool = pool(url, 4);
      String claims = CLAIMS_TABLE + "_" + db;
      try (Connection c = pool.getConnection();
          Statement st = c.createStatement()) {
        st.execute("DROP TABLE IF EXISTS " + claims);
        st.execute("DROP TABLE IF EXISTS " + ORDERS_TABLE);
        st.execute(
            "CREATE TABLE "
                + ORDERS_TABLE
                + (db.equals("pg")
                    ? " (id BIGSERIAL PRIMARY KEY,"
                    : " (id BIGINT AUTO_INCREMENT PRIMARY KEY,")
                + " order_id VARCHAR(64) NOT NULL, amount_cents BIGINT NOT NULL)");
      }
      JdbcIdempotencyStore store =
          JdbcIdempotencyStore.builder(pool).tableName(claims).createSchemaIfMissing(true).build();
      tools.add(
          new SyncToolSpecification(
              tool("insert_" + db),
              (exchange, request) -> {
                try (Connection c = pool.getConnection()) {
                  return insert(c, request);
                } catch (Exception e) {
                  throw new IllegalStateException(e);
                }
              }));
      McpGate mcpGate = mcpGate(store, false, null);
      tools.add(
          mcpGate.gateTransactional(
              tool("insert_" + db + "_tx"),
              policy,
              store.transactions(),
              (exchange, request, scope, connection) -> insert(connection, request)));
      tools.add(
          mcpGate.gateSingleCommit(
              tool("insert_" + db + "_sc"),
              policy,
              store.singleCommit(),
              (exchange, request, scope, connection) -> insert(connection, request)));
      return store;
    }

    private HikariDataSource pool(String url, int size) {
      HikariConfig config = new HikariConfig();
      config.setJdbcUrl(url);
      config.setMaximumPoolSize(size);
      HikariDataSource pool = new HikariDataSource(config);
      closeables.add(0, pool); // closed last
      return pool;
    }

    private McpGate mcpGate(IdempotencyStore store, boolean listener, JdbcAuditSink audit) {
      IdempotencyGate.Builder builder = IdempotencyGate.builder(store);
      if (listener) {
        builder.listener(new Slf4jGateListener());
      }
      IdempotencyGate gate = builder.build();
      closeables.add(gate);
      McpGate.Builder b =
          McpGate.builder(gate)
              .tenantResolver(TenantResolver.fixed("local"))
              .jsonMapper(json)
              .requireExactNumbers();
      if (audit != null) {
        b.audit(audit);
      }
      return b.build();
    }

    private void gatedNoop(
        String name, IdempotencyStore store, boolean listener, JdbcAuditSink audit) {
      McpGate mcpGate = mcpGate(store, listener, audit);
      tools.add(mcpGate.gate(noop(name), policy));
      Tool t = tool(name);
      inProcess.put(
          name,
          mcpGate.gate(
              new McpStatelessServerFeatures.SyncToolSpecification(
                  t, (ctx, request) -> NOOP_RESULT),
              policy));
    }

    @Override
    public void close() throws Exception {
      for (int i = closeables.size() - 1; i >= 0; i--) {
        closeables.get(i).close();
      }
    }
  }

  private static final CallToolResult NOOP_RESULT =
      CallToolResult.builder().addTextContent("ok").build();

  static Tool tool(String name) {
    return Tool.builder(
            name,
            Map.of(
                "type",
                "object",
                "properties",
                Map.of(
                    "order_id", Map.of("type", "string"),
                    "amount_cents", Map.of("type", "integer"))))
        .description("benchmark tool " + name)
        .build();
  }

  static SyncToolSpecification noop(String name) {
    return new SyncToolSpecification(tool(name), (exchange, request) -> NOOP_RESULT);
  }

  /** The ungated no-op that first spins for {@code nanos}: handler work without the gate. */
  static SyncToolSpecification busy(String name, long nanos) {
    return new SyncToolSpecification(
        tool(name),
        (exchange, request) -> {
          long until = System.nanoTime() + nanos;
          while (System.nanoTime() < until) {
            Thread.onSpinWait();
          }
          return NOOP_RESULT;
        });
  }

  static CallToolResult insert(Connection c, CallToolRequest request) throws Exception {
    try (PreparedStatement ps =
        c.prepareStatement(
            "INSERT INTO " + ORDERS_TABLE + " (order_id, amount_cents) VALUES (?, ?)")) {
      ps.setString(1, (String) request.arguments().get("order_id"));
      ps.setLong(2, ((Number) request.arguments().get("amount_cents")).longValue());
      ps.executeUpdate();
    }
    return CallToolResult.builder().addTextContent("inserted").build();
  }

  static McpSyncServer server(
      McpServer.SyncSpecification<?> spec, List<SyncToolSpecification> tools, McpJsonMapper json) {
    return spec.jsonMapper(json)
        .serverInfo("e2e-bench", "1")
        .capabilities(ServerCapabilities.builder().tools(true).build())
        .tools(tools)
        .requestTimeout(Duration.ofSeconds(60))
        .build();
  }

  /** Streamable HTTP on embedded Tomcat, a free loopback port. */
  static final class HttpServer implements AutoCloseable {
    private final Tomcat tomcat = new Tomcat();
    private final McpSyncServer server;
    private final Path baseDir;
    private final int port;

    HttpServer(List<SyncToolSpecification> tools) throws Exception {
      McpJsonMapper json = ExactNumbers.jsonMapper();
      HttpServletStreamableServerTransportProvider transport =
          HttpServletStreamableServerTransportProvider.builder()
              .jsonMapper(json)
              .mcpEndpoint("/mcp")
              .build();
      server = server(McpServer.sync(transport), tools, json);
      baseDir = Files.createTempDirectory("mcpgate-e2e-tomcat");
      tomcat.setBaseDir(baseDir.toString());
      tomcat.setHostname("127.0.0.1");
      tomcat.setPort(0);
      tomcat.getConnector().setProperty("address", "127.0.0.1");
      Context context = tomcat.addContext("", null);
      Wrapper wrapper = Tomcat.addServlet(context, "mcp", transport);
      wrapper.setAsyncSupported(true);
      context.addServletMappingDecoded("/*", "mcp");
      tomcat.start();
      port = tomcat.getConnector().getLocalPort();
    }

    McpSyncClient client() {
      McpSyncClient client =
          McpClient.sync(
                  HttpClientStreamableHttpTransport.builder("http://127.0.0.1:" + port)
                      .endpoint("/mcp")
                      .build())
              .requestTimeout(Duration.ofSeconds(60))
              .build();
      client.initialize();
      return client;
    }

    @Override
    public void close() throws Exception {
      server.close();
      tomcat.stop();
      tomcat.destroy();
      deleteTree(baseDir);
    }
  }

  /** The child JVM's side: the same tools, served on its stdin and stdout. */
  private static void serveStdio(String[] args) throws Exception {
    String pg = args[1].equals("-") ? null : args[1];
    String mariadb = args[2].equals("-") ? null : args[2];
    String redis = args[3].equals("-") ? null : args[3];
    Backends backends = new Backends(pg, mariadb, redis, Path.of(args[4]));
    McpJsonMapper json = ExactNumbers.jsonMapper();
    HandlerTimes times = new HandlerTimes();
    McpSyncServer server =
        server(
            McpServer.sync(new StdioServerTransportProvider(json)),
            backends.tools().stream().map(times::timed).toList(),
            json);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  times.write(Path.of(args[4]).resolveSibling(HANDLER_TIMES));
                  server.close();
                  try {
                    backends.close();
                  } catch (Exception ignored) {
                    // exiting
                  }
                }));
    // the parent ends this process when it closes its client; should it die first, so does this
    ProcessHandle.current().parent().ifPresent(p -> p.onExit().thenRun(() -> System.exit(0)));
    new CountDownLatch(1).await();
  }

  /**
   * The time each tool's handler took inside the stdio server, from its call to its return: what
   * the server's own work was, beside what the client measured around the pipe.
   */
  static final class HandlerTimes {
    /** One tool's last times, a ring of {@code times.length}, and how many calls were timed. */
    private record Tool(long[] times, AtomicInteger calls) {}

    private final Map<String, Tool> tools = new ConcurrentHashMap<>();

    SyncToolSpecification timed(SyncToolSpecification spec) {
      Tool t =
          tools.computeIfAbsent(
              spec.tool().name(), n -> new Tool(new long[1 << 18], new AtomicInteger()));
      var handler = spec.callHandler();
      return new SyncToolSpecification(
          spec.tool(),
          (exchange, request) -> {
            long t0 = System.nanoTime();
            CallToolResult result = handler.apply(exchange, request);
            t.times()[t.calls().getAndIncrement() & (t.times().length - 1)] =
                System.nanoTime() - t0;
            return result;
          });
    }

    void write(Path file) {
      StringBuilder out = new StringBuilder();
      tools.forEach(
          (name, t) -> {
            int n = Math.min(t.calls().get(), t.times().length);
            if (n > 0) {
              long[] sorted = Arrays.copyOf(t.times(), n);
              Arrays.sort(sorted);
              out.append(
                  String.format(
                      Locale.ROOT,
                      "| %s | %d | %.1f | %.1f |%n",
                      name,
                      n,
                      percentile(sorted, 0.5) / 1e3,
                      percentile(sorted, 0.9) / 1e3));
            }
          });
      try {
        Files.writeString(file, out);
      } catch (IOException e) {
        System.err.println("could not write " + file + ": " + e);
      }
    }
  }

  private static McpSyncClient stdioClient(
      List<String> jvmOptions, String pg, String mariadb, String redis, Path h2Dir) {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    List<String> args = new ArrayList<>(jvmOptions);
    args.addAll(
        List.of(
            "-cp",
            System.getProperty("java.class.path"),
            EndToEndBenchmark.class.getName(),
            "--serve-stdio",
            pg == null ? "-" : pg,
            mariadb == null ? "-" : mariadb,
            redis == null ? "-" : redis,
            h2Dir.toString()));
    ServerParameters params = ServerParameters.builder(java).args(args).build();
    StdioClientTransport transport = new StdioClientTransport(params, McpJsonDefaults.getMapper());
    transport.setStdErrorHandler(line -> System.err.println("[stdio server] " + line));
    McpSyncClient client =
        McpClient.sync(transport)
            .requestTimeout(Duration.ofSeconds(120))
            .initializationTimeout(Duration.ofSeconds(120))
            .build();
    try {
      client.initialize();
    } catch (RuntimeException e) {
      client.closeGracefully(); // ends the server's process, which would outlive this one
      throw e;
    }
    return client;
  }

  // ---------------------------------------------------------------- the client's side

  enum Keys {
    NONE,
    FRESH,
    REPLAY
  }

  record Scenario(String label, String tool, Keys keys, String group) {}

  /** The one-INSERT tool on one database: ungated, then transactional and single-commit. */
  private static void insertScenarios(List<Scenario> s, String name, String db) {
    s.add(new Scenario("INSERT, " + name + ", ungated", "insert_" + db, Keys.NONE, "main"));
    for (String[] mode : new String[][] {{"transactional", "_tx"}, {"single-commit", "_sc"}}) {
      String tool = "insert_" + db + mode[1];
      String label = "INSERT, " + name + " " + mode[0] + ", ";
      s.add(new Scenario(label + "fresh", tool, Keys.FRESH, "main"));
      s.add(new Scenario(label + "replay", tool, Keys.REPLAY, "main"));
    }
  }

  static List<Scenario> scenarios(boolean pg, boolean mariadb, boolean redis) {
    List<Scenario> s = new ArrayList<>();
    s.add(new Scenario("no-op, ungated", "noop", Keys.NONE, "main"));
    s.add(new Scenario("no-op, in-memory, fresh", "noop_mem", Keys.FRESH, "main"));
    s.add(new Scenario("no-op, in-memory, replay", "noop_mem", Keys.REPLAY, "main"));
    // the gated calls send a key argument the ungated base does not: this is its weight alone
    s.add(new Scenario("diag: no-op, ungated, sent a new key", "noop", Keys.FRESH, "diag"));
    // what a handler's own work costs end to end, gate or not: 4 µs is the gate's in process
    s.add(new Scenario("diag: no-op, ungated, 1 µs of work", "noop_busy1", Keys.NONE, "diag"));
    s.add(new Scenario("diag: no-op, ungated, 4 µs of work", "noop_busy4", Keys.NONE, "diag"));
    s.add(new Scenario("diag: no-op, ungated, 20 µs of work", "noop_busy20", Keys.NONE, "diag"));
    if (pg) {
      s.add(new Scenario("no-op, PostgreSQL, fresh", "noop_pg", Keys.FRESH, "main"));
      s.add(new Scenario("no-op, PostgreSQL, replay", "noop_pg", Keys.REPLAY, "main"));
    }
    if (redis) {
      s.add(new Scenario("no-op, Redis, fresh", "noop_redis", Keys.FRESH, "main"));
      s.add(new Scenario("no-op, Redis, replay", "noop_redis", Keys.REPLAY, "main"));
    }
    if (pg) {
      insertScenarios(s, "PostgreSQL", "pg");
    }
    if (mariadb) {
      insertScenarios(s, "MariaDB", "mariadb");
    }
    s.add(
        new Scenario(
            "replay diag: in-memory + SLF4J listener", "noop_mem_listener", Keys.REPLAY, "diag"));
    s.add(
        new Scenario(
            "replay diag: in-memory + audit (H2 file)", "noop_mem_audit", Keys.REPLAY, "diag"));
    s.add(
        new Scenario(
            "replay diag: in-memory + listener + audit",
            "noop_mem_listener_audit",
            Keys.REPLAY,
            "diag"));
    s.add(
        new Scenario(
            "example config (H2 file claims, audit, listener), fresh",
            "noop_h2_example",
            Keys.FRESH,
            "diag"));
    s.add(
        new Scenario(
            "example config (H2 file claims, audit, listener), replay",
            "noop_h2_example",
            Keys.REPLAY,
            "diag"));
    s.add(
        new Scenario(
            "example config without the audit sink, replay",
            "noop_h2_no_audit",
            Keys.REPLAY,
            "diag"));
    return s;
  }

  record Row(String transport, Scenario scenario, double perSecond, double p50, double p99) {}

  /** Where the stdio server leaves its handlers' times, beside its H2 folder. */
  private static final String HANDLER_TIMES = "stdio-handler-times.md";

  private static final String RUN = UUID.randomUUID().toString().substring(0, 8);

  private static List<Row> run(
      String transport,
      McpSyncClient client,
      List<Scenario> scenarios,
      int calls,
      int warmup,
      int rounds) {
    int perRound = Math.max(1, calls / rounds);
    Map<Scenario, Supplier<CallToolRequest>> requests = new LinkedHashMap<>();
    int[] counter = {0};
    for (Scenario s : scenarios) {
      String replayKey = "replay-" + transport + "-" + RUN + "-" + s.tool();
      requests.put(
          s,
          () -> {
            Map<String, Object> args = new HashMap<>();
            args.put("order_id", "o-1");
            args.put("amount_cents", 1250);
            switch (s.keys()) {
              case FRESH ->
                  args.put(
                      ToolPolicy.DEFAULT_KEY_ARGUMENT,
                      "fresh-" + transport + "-" + RUN + "-" + (counter[0]++));
              case REPLAY -> args.put(ToolPolicy.DEFAULT_KEY_ARGUMENT, replayKey);
              case NONE -> {}
            }
            return new CallToolRequest(s.tool(), args);
          });
    }
    long warmStart = System.nanoTime();
    for (int i = 0; i < warmup; i++) { // interleaved, so that every path is warm
      for (Scenario s : scenarios) {
        check(s, client.callTool(requests.get(s).get()), i > 0);
      }
    }
    System.out.printf(
        Locale.ROOT, "%s: warm-up %.1f s%n", transport, (System.nanoTime() - warmStart) / 1e9);
    Map<Scenario, long[]> latencies = new LinkedHashMap<>();
    Map<Scenario, Long> elapsed = new LinkedHashMap<>();
    for (Scenario s : scenarios) {
      latencies.put(s, new long[perRound * rounds]);
      elapsed.put(s, 0L);
    }
    for (int round = 0; round < rounds; round++) {
      for (Scenario s : scenarios) {
        long[] l = latencies.get(s);
        Supplier<CallToolRequest> next = requests.get(s);
        long begin = System.nanoTime();
        for (int i = 0; i < perRound; i++) {
          CallToolRequest request = next.get();
          long t0 = System.nanoTime();
          CallToolResult result = client.callTool(request);
          l[round * perRound + i] = System.nanoTime() - t0;
          if (Boolean.TRUE.equals(result.isError())) {
            throw new IllegalStateException(s.label() + ": " + result);
          }
        }
        elapsed.merge(s, System.nanoTime() - begin, Long::sum);
      }
    }
    List<Row> rows = new ArrayList<>();
    for (Scenario s : scenarios) {
      long[] l = latencies.get(s);
      Arrays.sort(l);
      rows.add(
          new Row(
              transport,
              s,
              l.length / (elapsed.get(s) / 1e9),
              percentile(l, 0.50) / 1e6,
              percentile(l, 0.99) / 1e6));
    }
    return rows;
  }

  /** Fails on an error result, and on a replay not marked as one (after the first call). */
  private static void check(Scenario s, CallToolResult result, boolean replayed) {
    if (Boolean.TRUE.equals(result.isError())) {
      throw new IllegalStateException(s.label() + ": " + result);
    }
    boolean marked = result.meta() != null && !result.meta().isEmpty();
    if (s.keys() == Keys.REPLAY && replayed && !marked) {
      throw new IllegalStateException(s.label() + ": not a replay: " + result);
    }
    if (s.keys() == Keys.FRESH && marked) {
      throw new IllegalStateException(s.label() + ": a fresh call replayed: " + result);
    }
  }

  static double percentile(long[] sorted, double p) {
    int i = (int) Math.ceil(p * sorted.length) - 1;
    return sorted[Math.max(0, Math.min(sorted.length - 1, i))];
  }

  private static void print(List<Row> rows) {
    System.out.println();
    System.out.println(
        "| transport | scenario | calls/s | p50 ms | p99 ms | p50 vs ungated no-op"
            + " | p50 vs the same tool ungated |");
    System.out.println("|---|---|---|---|---|---|---|");
    Map<String, Double> ungated = new HashMap<>(); // transport and tool: the ungated p50
    for (Row r : rows) {
      if (r.scenario().keys() == Keys.NONE) {
        ungated.put(r.transport() + " " + r.scenario().tool(), r.p50());
      }
    }
    for (Row r : rows) {
      String tool = r.scenario().tool();
      Double same =
          tool.startsWith("insert_")
              ? ungated.get(r.transport() + " " + tool.replaceAll("_(tx|sc)$", ""))
              : null;
      System.out.printf(
          Locale.ROOT,
          "| %s | %s | %.0f | %.3f | %.3f | %.2fx | %s |%n",
          r.transport(),
          r.scenario().label(),
          r.perSecond(),
          r.p50(),
          r.p99(),
          r.p50() / ungated.get(r.transport() + " noop"),
          same == null ? "" : String.format(Locale.ROOT, "%.2fx", r.p50() / same));
    }
  }

  // ---------------------------------------------------------------- the gate alone, in process

  /**
   * The gated no-op handlers called directly (no transport, no JSON-RPC): the gate's share of an
   * end-to-end call; and the JSON write and read-back of a stored result.
   */
  private static void inProcess(Backends backends, int memCalls, int dbCalls) throws IOException {
    McpTransportContext context = McpTransportContext.create(Map.of());
    System.out.println();
    System.out.println(
        "in process, no transport (the gated handler called directly), "
            + memCalls
            + " calls each ("
            + dbCalls
            + " on a database):");
    System.out.println("| handler | fresh p50 µs | replay p50 µs | replay p99 µs |");
    System.out.println("|---|---|---|---|");
    for (var e : backends.inProcess.entrySet()) {
      var handler = e.getValue().callHandler();
      int calls = e.getKey().startsWith("noop_mem") ? memCalls : dbCalls;
      long[] fresh = new long[calls];
      long[] replay = new long[calls];
      String replayKey = "inproc-replay-" + RUN;
      for (int round = 0; round < 2; round++) { // the first round warms
        for (int i = 0; i < calls; i++) {
          Map<String, Object> args = new HashMap<>();
          args.put("order_id", "o-1");
          args.put("amount_cents", 1250);
          args.put(ToolPolicy.DEFAULT_KEY_ARGUMENT, "inproc-" + RUN + "-" + round + "-" + i);
          CallToolRequest request = new CallToolRequest(e.getKey(), args);
          long t0 = System.nanoTime();
          handler.apply(context, request);
          fresh[i] = System.nanoTime() - t0;
          Map<String, Object> replayArgs = new HashMap<>(args);
          replayArgs.put(ToolPolicy.DEFAULT_KEY_ARGUMENT, replayKey);
          request = new CallToolRequest(e.getKey(), replayArgs);
          t0 = System.nanoTime();
          handler.apply(context, request);
          replay[i] = System.nanoTime() - t0;
        }
      }
      Arrays.sort(fresh);
      Arrays.sort(replay);
      System.out.printf(
          Locale.ROOT,
          "| %s | %.1f | %.1f | %.1f |%n",
          e.getKey(),
          percentile(fresh, 0.5) / 1e3,
          percentile(replay, 0.5) / 1e3,
          percentile(replay, 0.99) / 1e3);
    }
    McpJsonMapper json = ExactNumbers.jsonMapper();
    long[] write = new long[memCalls];
    long[] read = new long[memCalls];
    for (int round = 0; round < 2; round++) {
      for (int i = 0; i < memCalls; i++) {
        long t0 = System.nanoTime();
        byte[] bytes = json.writeValueAsBytes(NOOP_RESULT);
        long t1 = System.nanoTime();
        json.readValue(bytes, CallToolResult.class);
        long t2 = System.nanoTime();
        write[i] = t1 - t0;
        read[i] = t2 - t1;
      }
    }
    Arrays.sort(write);
    Arrays.sort(read);
    System.out.printf(
        Locale.ROOT,
        "stored result (the no-op's CallToolResult), exact mapper:"
            + " write p50 %.1f µs, read-back p50 %.1f µs%n",
        percentile(write, 0.5) / 1e3,
        percentile(read, 0.5) / 1e3);
  }

  // ---------------------------------------------------------------- small things

  private static Map<String, String> options(String[] args) {
    Map<String, String> o = new HashMap<>();
    for (int i = 0; i + 1 < args.length; i += 2) {
      if (!args[i].startsWith("--")) {
        throw new IllegalArgumentException(
            "usage: [--calls N] [--warmup N] [--rounds N] [--transports http,stdio]"
                + " [--tools TOOL,...] [--stdio-jvm \"OPTIONS\"]");
      }
      o.put(args[i].substring(2), args[i + 1]);
    }
    return o;
  }

  private static String env(String name, String fallback) {
    String v = System.getenv(name);
    return v == null || v.isBlank() ? fallback : v;
  }

  private static boolean reachable(URI uri, int defaultPort) {
    String host = uri.getHost() == null ? "127.0.0.1" : uri.getHost();
    int port = uri.getPort() < 0 ? defaultPort : uri.getPort();
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress(host, port), 1000);
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  static void deleteTree(Path root) throws IOException {
    if (!Files.exists(root)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(root)) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }
}
