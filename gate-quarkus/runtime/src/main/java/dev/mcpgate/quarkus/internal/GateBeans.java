package dev.mcpgate.quarkus.internal;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.mcpgate.core.GateListener;
import dev.mcpgate.core.IdempotencyGate;
import dev.mcpgate.core.Slf4jGateListener;
import dev.mcpgate.core.StoreUnavailableException;
import dev.mcpgate.core.memory.InMemoryIdempotencyStore;
import dev.mcpgate.core.purge.ClaimPurger;
import dev.mcpgate.core.spi.IdempotencyStore;
import dev.mcpgate.jdbc.JdbcIdempotencyStore;
import dev.mcpgate.mcp.ExactNumbers;
import dev.mcpgate.mcp.Idempotent;
import dev.mcpgate.mcp.McpGate;
import dev.mcpgate.mcp.ToolPolicy;
import dev.mcpgate.quarkus.McpGateConfig;
import io.modelcontextprotocol.server.McpStatelessServerFeatures.SyncToolSpecification;
import io.modelcontextprotocol.spec.McpSchema;
import io.quarkus.credentials.CredentialsProvider;
import io.quarkus.credentials.runtime.CredentialsProviderFinder;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.function.Supplier;
import javax.sql.DataSource;
import org.eclipse.microprofile.config.Config;
import org.eclipse.microprofile.config.ConfigProvider;
import org.jboss.logging.Logger;

/**
 * The gate of the application, built once at startup from {@code mcpgate.*} and the application's
 * default data source (or Redis, or memory): the store (its table checked at startup), the gate,
 * the adapter over it and the purge of expired claims; all closed when the application stops.
 */
@Singleton
public class GateBeans {
  private static final Logger LOG = Logger.getLogger(GateBeans.class);

  private final McpGateConfig config;
  private final Instance<DataSource> dataSources;
  private final Instance<StoreMetrics> metrics;
  private final Instance<GateListener> listeners;
  private final GatedTools tools;
  private final ObjectMapper json;
  private final ConcurrentMap<GatedTools.Tool, SyncToolSpecification> specs =
      new ConcurrentHashMap<>();
  private volatile IdempotencyStore opened; // closed by stop, even when the rest was not built
  private volatile Built built;
  @Inject InFlightCalls inFlight; // drained at shutdown, before the gate closes

  /** What was built at startup, closed at shutdown. */
  private record Built(
      IdempotencyStore store, IdempotencyGate gate, McpGate mcp, ClaimPurger purger) {}

  GateBeans(
      McpGateConfig config,
      Instance<DataSource> dataSources,
      Instance<StoreMetrics> metrics,
      Instance<GateListener> listeners,
      GatedTools tools,
      ObjectMapper json) {
    this.tools = tools;
    this.json = json;
    this.config = config;
    this.dataSources = dataSources;
    this.metrics = metrics;
    this.listeners = listeners;
  }

  void start(@Observes StartupEvent event) {
    try {
      built();
      for (GatedTools.Tool tool : tools.tools()) {
        spec(tool); // a gated tool whose @Idempotent the gate refuses stops the startup
      }
    } catch (RuntimeException | Error e) {
      stop(null); // Quarkus sends no ShutdownEvent after a failed startup: close what was opened
      throw e;
    }
  }

  /**
   * @return the adapter's gated handler of a tool, made once; its handler runs the method of the
   *     {@link GateInterceptor.Call} in the transport context
   * @throws IllegalStateException naming the tool when its {@code @Idempotent} is not valid
   */
  SyncToolSpecification spec(GatedTools.Tool tool) {
    return specs.computeIfAbsent(tool, this::gated);
  }

  private SyncToolSpecification gated(GatedTools.Tool tool) {
    Map<String, Object> properties = new LinkedHashMap<>();
    for (String name : tool.arguments()) {
      if (name != null) {
        properties.put(name, Map.of());
      }
    }
    McpSchema.Tool definition =
        McpSchema.Tool.builder()
            .name(tool.name())
            .description(tool.description())
            .inputSchema(Map.of("type", "object", "properties", properties))
            .build();
    SyncToolSpecification plain =
        new SyncToolSpecification(
            definition,
            (context, request) ->
                ((GateInterceptor.Call) context.get(GateInterceptor.CALL)).proceed(json));
    try {
      checkNumbers(tool);
      return mcpGate().gate(plain, ToolPolicy.of(tool.method().getAnnotation(Idempotent.class)));
    } catch (RuntimeException e) {
      throw new IllegalStateException(
          "MCP Gate cannot gate tool "
              + tool.name()
              + " ("
              + tool.className()
              + "#"
              + tool.methodName()
              + "): "
              + e.getMessage(),
          e);
    }
  }

  /**
   * A {@code double} or {@code float} in an argument reaches the gate as a double, which the
   * adapter refuses unless inexact numbers are accepted ({@link InexactNumbers}): where one is
   * written whenever the argument is given (a primitive, at the top or in a nested object), every
   * call that gives it would be refused, whole numbers too; elsewhere, each call that carries one.
   *
   * @throws IllegalArgumentException for one written whenever the argument is given, naming where
   *     it sits and the fixes
   */
  private void checkNumbers(GatedTools.Tool tool) {
    if (config.acceptInexactNumbers()) {
      return;
    }
    String fixes =
        "take it as a whole number of the smallest unit (long) or as a String, or accept the risk"
            + " with mcpgate.accept-inexact-numbers=true";
    java.lang.reflect.Type[] types = tool.method().getGenericParameterTypes();
    for (int i = 0; i < tool.arguments().length && i < types.length; i++) {
      String name = tool.arguments()[i];
      if (name == null) {
        continue;
      }
      for (InexactNumbers.Found found : new InexactNumbers(json).in(name, types[i])) {
        boolean top = found.path().equals(name);
        if (found.decimal()) {
          if (top) {
            continue; // the MCP server's schema takes it for an object, and refuses a number
          }
          LOG.warnf(
              "MCP Gate: tool %s: the BigDecimal at %s is made from the double the MCP server"
                  + " reads a decimal as, so amounts that differ past a double's precision (about"
                  + " 15 significant digits) are one intent, and a retry of one replays the other;"
                  + " take it as a String or a whole number of the smallest unit (long)",
              tool.name(), found.path());
          continue;
        }
        if (found.always()) {
          throw new IllegalArgumentException(
              (top
                      ? "its argument " + name + " is a double or float"
                      : "its argument " + name + " holds a double or float at " + found.path())
                  + ", which reaches the gate as a double that no hash can tell apart from nearby"
                  + " numbers, so every call that gives "
                  + name
                  + " would be refused (arguments_invalid), whole numbers too; "
                  + fixes);
        }
        LOG.warnf(
            "MCP Gate: tool %s: a call that gives %s is refused (arguments_invalid), whole numbers"
                + " too: %s",
            tool.name(),
            top ? name + " (a double or float)" : "a double or float at " + found.path(),
            fixes);
      }
    }
  }

  /**
   * Refuses new gated calls and waits (at most {@code mcpgate.shutdown.drain-timeout}) for those in
   * flight, whose leases the gate renews meanwhile; then closes what was opened: the purge and the
   * gate once built, and the Redis store (with the Lettuce client it made) or the JDBC store (its
   * renewal connection) even when the rest was never built. At shutdown, and from {@link #start}
   * when the startup fails.
   */
  void stop(@Observes ShutdownEvent event) {
    int left = inFlight.drain(config.shutdown().drainTimeout());
    if (left > 0) {
      LOG.warnf(
          "MCP Gate closes with %d gated calls still running after"
              + " mcpgate.shutdown.drain-timeout=%s: their leases are no longer renewed, so a"
              + " retry elsewhere may take their keys over after one lease while they still run",
          left, config.shutdown().drainTimeout());
    }
    Built b = built;
    if (b != null) {
      if (b.purger() != null) {
        b.purger().close();
      }
      b.gate().close();
    }
    IdempotencyStore store = opened;
    if (store != null && RedisStores.isRedis(store)) {
      RedisStores.close(store); // the store made its Lettuce client, with its threads
    } else if (store instanceof JdbcIdempotencyStore jdbc) {
      try {
        jdbc.close(); // its renewal connection, opened from the driver (not the data source's)
      } catch (RuntimeException e) {
        LOG.warn("MCP Gate could not close the JDBC store's renewal connection", e);
      }
    }
  }

  /**
   * @return the adapter that gated tools run through
   */
  McpGate mcpGate() {
    return built().mcp();
  }

  /**
   * @return the claims store (for the application's operators and tests)
   */
  public IdempotencyStore store() {
    return built().store();
  }

  private synchronized Built built() {
    if (built == null) {
      if (opened == null) {
        opened = store(config);
      }
      built = build(opened);
    }
    return built;
  }

  private Built build(IdempotencyStore store) {
    verify(store);
    IdempotencyGate.Builder g =
        IdempotencyGate.builder(metrics.isResolvable() ? metrics.get().timed(store) : store)
            .listener(new Slf4jGateListener());
    if (metrics.isResolvable()) {
      g.listener(metrics.get().listener(store));
    }
    listeners.forEach(g::listener); // the application's own
    // the extension drains the calls in flight itself (mcpgate.shutdown.drain-timeout) before it
    // closes the gate: the gate's own drain would only wait for them a second time
    IdempotencyGate gate = g.drainTimeout(Duration.ZERO).build();
    // the adapter's mapper only stores and replays results here: the arguments come from the
    // extension, which decodes decimals as double (refused, unless accepted, below)
    McpGate.Builder mcp =
        McpGate.builder(gate).tenantResolver(CallTenant::of).jsonMapper(ExactNumbers.jsonMapper());
    if (config.acceptInexactNumbers()) {
      LOG.warn(
          "mcpgate.accept-inexact-numbers=true: decimal arguments, which the MCP server"
              + " extension decodes as double, are hashed as they are, so 1250.0000000000000001"
              + " and 1250 hash alike and one call replays the other's result");
      mcp.acceptInexactNumbers();
    } else {
      LOG.info(
          "MCP Gate refuses (arguments_invalid) a gated call with a decimal argument: the MCP"
              + " server extension decodes decimals as double, which no hash can tell apart from"
              + " nearby numbers. Take amounts as whole numbers of the smallest unit, or as"
              + " strings; or accept the risk with mcpgate.accept-inexact-numbers=true");
    }
    ClaimPurger purger = null;
    if (store instanceof JdbcIdempotencyStore && config.purge().enabled()) {
      purger = ClaimPurger.start(store, config.purge().interval(), config.purge().batchSize());
    }
    return new Built(store, gate, mcp.build(), purger);
  }

  private IdempotencyStore store(McpGateConfig config) {
    if (config.store() == McpGateConfig.Store.MEMORY) {
      LOG.warn("MCP Gate keeps its claims in memory (mcpgate.store=memory): for tests and demos");
      return InMemoryIdempotencyStore.create();
    }
    if (config.store() == McpGateConfig.Store.REDIS) {
      return RedisStores.create(config.redis());
    }
    if (config.redis().url().isPresent()) {
      throw new IllegalStateException(
          "mcpgate.redis.url is set, but mcpgate.store is "
              + config.store().name().toLowerCase(java.util.Locale.ROOT)
              + ": MCP Gate keeps its claims in Redis only with mcpgate.store=redis (auto never"
              + " picks Redis). Set mcpgate.store=redis, or remove mcpgate.redis.url; replicas"
              + " that gate on different stores do not see each other's claims");
    }
    if (!dataSources.isResolvable()) {
      throw new IllegalStateException(
          "MCP Gate found no store: mcpgate.store="
              + config.store().name().toLowerCase(java.util.Locale.ROOT)
              + " needs the application's default data source (quarkus-agroal and a JDBC driver"
              + " extension, quarkus.datasource.*), or mcpgate.store=redis with"
              + " mcpgate.redis.url; for a test or a demo, set mcpgate.store=memory");
    }
    JdbcIdempotencyStore.Builder b =
        JdbcIdempotencyStore.builder(dataSources.get())
            .tableName(config.tableName())
            .createSchemaIfMissing(config.createSchemaIfMissing());
    // renewals on connections of their own, straight from the driver (the renewal's deadline as its
    // timeouts), never from the Agroal pool the tools may hold in full
    Config app = ConfigProvider.getConfig();
    app.getOptionalValue("quarkus.datasource.jdbc.url", String.class)
        .ifPresent(
            url ->
                b.renewalConnectionsFromDriver(
                    url,
                    renewalProperties(app),
                    // what Agroal runs on each new connection (a search_path, say)
                    app.getOptionalValue("quarkus.datasource.jdbc.new-connection-sql", String.class)
                        .orElse(null)));
    return b.build();
  }

  /**
   * The driver's properties for a renewal connection, as Agroal makes its own: the data source's
   * additional JDBC properties, its user and password, and what its credentials provider says,
   * asked again for each new renewal connection (so that rotated credentials are used).
   */
  static Supplier<Properties> renewalProperties(Config app) {
    String prefix = "quarkus.datasource.jdbc.additional-jdbc-properties.";
    Properties fixed = new Properties();
    for (String name : app.getPropertyNames()) {
      if (name.startsWith(prefix)) {
        String property = name.substring(prefix.length()).replace("\"", "");
        app.getOptionalValue(name, String.class).ifPresent(v -> fixed.setProperty(property, v));
      }
    }
    app.getOptionalValue("quarkus.datasource.username", String.class)
        .ifPresent(user -> fixed.setProperty("user", user));
    app.getOptionalValue("quarkus.datasource.password", String.class)
        .ifPresent(password -> fixed.setProperty("password", password));
    Optional<String> provider =
        app.getOptionalValue("quarkus.datasource.credentials-provider", String.class);
    if (provider.isEmpty()) {
      return () -> fixed;
    }
    CredentialsProvider credentials =
        CredentialsProviderFinder.find(
            app.getOptionalValue("quarkus.datasource.credentials-provider-name", String.class)
                .orElse(null));
    return () -> {
      Properties now = new Properties();
      now.putAll(fixed);
      Map<String, String> given = credentials.getCredentials(provider.get());
      if (given.get(CredentialsProvider.USER_PROPERTY_NAME) != null) {
        now.setProperty("user", given.get(CredentialsProvider.USER_PROPERTY_NAME));
      }
      if (given.get(CredentialsProvider.PASSWORD_PROPERTY_NAME) != null) {
        now.setProperty("password", given.get(CredentialsProvider.PASSWORD_PROPERTY_NAME));
      }
      return now;
    };
  }

  private void verify(IdempotencyStore store) {
    if (config.verifySchema() && RedisStores.isRedis(store)) {
      RedisStores.verify(store);
      return;
    }
    if (!config.verifySchema() || !(store instanceof JdbcIdempotencyStore jdbc)) {
      return;
    }
    try {
      jdbc.verify();
    } catch (StoreUnavailableException e) {
      throw new IllegalStateException(
          "MCP Gate could not use its JDBC store at startup: "
              + e.getMessage()
              + "\n(mcpgate.create-schema-if-missing=true creates the table;"
              + " mcpgate.verify-schema=false starts without this check, and the first call finds"
              + " out)",
          e);
    }
  }
}
