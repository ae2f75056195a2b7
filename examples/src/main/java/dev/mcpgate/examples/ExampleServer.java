package dev.mcpgate.examples;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.mcpgate.core.ClaimId;
import dev.mcpgate.core.GatePolicy;
import dev.mcpgate.core.IdempotencyGate;
import dev.mcpgate.core.InvalidIdempotencyKeyException;
import dev.mcpgate.core.Slf4jGateListener;
import dev.mcpgate.core.purge.ClaimPurger;
import dev.mcpgate.core.spi.IdempotencyStore;
import dev.mcpgate.dynamodb.DynamoDbIdempotencyStore;
import dev.mcpgate.jdbc.JdbcAuditSink;
import dev.mcpgate.jdbc.JdbcIdempotencyStore;
import dev.mcpgate.mcp.McpGate;
import dev.mcpgate.mcp.McpGateErrors;
import dev.mcpgate.mcp.TenantResolver;
import dev.mcpgate.mcp.ToolPolicy;
import dev.mcpgate.redis.RedisIdempotencyStore;
import io.lettuce.core.RedisURI;
import io.modelcontextprotocol.server.McpServerFeatures.SyncToolSpecification;
import io.modelcontextprotocol.server.McpSyncServerExchange;
import java.net.URI;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * The example server's parts: the business database, the claim store, the gate, the simulated
 * outside world, and the tools, gated the way that fits each.
 */
final class ExampleServer implements AutoCloseable {

  /**
   * @param jdbcUrl the business database, and the claim store unless another store is given
   * @param dynamoEndpoint a DynamoDB endpoint for the claims, or null
   * @param redisUrl a Redis URL for the claims, or null
   * @param tenants how each call's tenant is told
   * @param ungated tools to leave ungated (only to show, in tests, what the gate prevents)
   * @param purgeInterval how often expired claims are deleted (positive)
   * @param purgeBatchSize the most rows one purge call deletes (at least 1)
   */
  record Config(
      String jdbcUrl,
      String dynamoEndpoint,
      String redisUrl,
      TenantResolver tenants,
      Set<String> ungated,
      Duration purgeInterval,
      int purgeBatchSize) {
    /** Expired claims are purged every 5 minutes, 500 rows a call, by default. */
    static final Duration PURGE_INTERVAL = Duration.ofMinutes(5);

    static final int PURGE_BATCH_SIZE = 500;

    Config {
      if (purgeInterval == null || purgeInterval.isNegative() || purgeInterval.isZero()) {
        throw new IllegalArgumentException(
            "the purge interval must be positive, was " + purgeInterval);
      }
      if (purgeBatchSize < 1) {
        throw new IllegalArgumentException(
            "the purge batch size must be at least 1, was " + purgeBatchSize);
      }
      if (dynamoEndpoint != null && redisUrl != null) {
        throw new IllegalArgumentException(
            "claims go to one store: give --dynamodb-endpoint or" + " --redis-url, not both");
      }
    }

    Config(
        String jdbcUrl,
        String dynamoEndpoint,
        String redisUrl,
        TenantResolver tenants,
        Set<String> ungated) {
      this(jdbcUrl, dynamoEndpoint, redisUrl, tenants, ungated, PURGE_INTERVAL, PURGE_BATCH_SIZE);
    }

    Config(String jdbcUrl, String dynamoEndpoint, String redisUrl, TenantResolver tenants) {
      this(jdbcUrl, dynamoEndpoint, redisUrl, tenants, Set.of());
    }

    /**
     * @return this configuration, with expired claims purged every interval, batch rows a call
     */
    Config withPurge(Duration interval, int batchSize) {
      return new Config(jdbcUrl, dynamoEndpoint, redisUrl, tenants, ungated, interval, batchSize);
    }
  }

  final HikariDataSource dataSource;
  final JdbcIdempotencyStore jdbcStore;
  final IdempotencyStore store;
  final IdempotencyGate gate;
  final McpGate mcpGate;

  /** The audit trail, in the business database beside the data it explains. */
  final JdbcAuditSink audit;

  final Externals externals = new Externals();

  /** Set by the demo: the next refund "crashes" after the payment provider accepted it. */
  final AtomicBoolean crashAfterNextRefund = new AtomicBoolean();

  final TenantResolver tenants;
  private final Set<String> ungated;
  private final DynamoDbClient dynamo;
  private final RedisIdempotencyStore redis;
  private final Map<String, AtomicInteger> executions = new ConcurrentHashMap<>();
  final StoryTools stories;
  final SessionTools sessions;
  private final ShopTools shop;

  /** Deletes expired claims on its own daemon thread; stopped by {@link #close()}. */
  private final ClaimPurger purger;

  ExampleServer(Config config) {
    this.tenants = config.tenants();
    this.ungated = Set.copyOf(config.ungated());
    HikariConfig pool = new HikariConfig();
    pool.setJdbcUrl(config.jdbcUrl());
    pool.setMaximumPoolSize(16);
    pool.setPoolName("mcpgate-example");
    this.dataSource = new HikariDataSource(pool);
    try {
      BusinessDb.create(dataSource);
    } catch (SQLException e) {
      dataSource.close();
      throw new IllegalStateException(
          "could not create the example's tables in " + config.jdbcUrl() + ": " + e.getMessage(),
          e);
    }
    if (config.dynamoEndpoint() != null) {
      this.dynamo =
          DynamoDbClient.builder()
              .endpointOverride(URI.create(config.dynamoEndpoint()))
              .region(Region.US_EAST_1)
              .credentialsProvider(
                  StaticCredentialsProvider.create(
                      AwsBasicCredentials.create("example", "example")))
              .build();
      this.store = DynamoDbIdempotencyStore.builder(dynamo).createSchemaIfMissing(true).build();
      this.jdbcStore = null;
      this.redis = null;
    } else if (config.redisUrl() != null) {
      this.dynamo = null;
      this.redis = RedisIdempotencyStore.builder(RedisURI.create(config.redisUrl())).build();
      this.store = redis;
      this.jdbcStore = null;
    } else {
      this.dynamo = null;
      this.redis = null;
      this.jdbcStore = JdbcIdempotencyStore.builder(dataSource).createSchemaIfMissing(true).build();
      this.store = jdbcStore;
    }
    this.gate =
        IdempotencyGate.builder(store)
            .policy(GatePolicy.builder().inFlightWait(Duration.ofSeconds(10)).build())
            .listener(new Slf4jGateListener())
            .build();
    this.purger = ClaimPurger.start(store, config.purgeInterval(), config.purgeBatchSize());
    this.audit = JdbcAuditSink.builder(dataSource).createSchemaIfMissing(true).build();
    this.mcpGate =
        McpGate.builder(gate)
            .tenantResolver(tenants)
            .jsonMapper(Transports.JSON)
            .requireExactNumbers()
            .audit(audit)
            .build();
    this.shop = new ShopTools(this);
    this.stories = new StoryTools(this);
    this.sessions = new SessionTools(this);
  }

  /**
   * @return every tool of the server, write tools gated (or declared safe), reads ungated; each
   *     answers a call whose tenant cannot be told with an error result, never an exception that
   *     the transport might turn into no response at all
   */
  List<SyncToolSpecification> tools() {
    return Stream.of(
            shop.refundOrder(),
            shop.sendPasswordReset(),
            stories.publishStory(),
            stories.reportReproduction(),
            stories.getStory(),
            sessions.startSession(),
            sessions.stopSession(),
            sessions.getSession())
        .map(this::tenantRequired)
        .toList();
  }

  private SyncToolSpecification tenantRequired(SyncToolSpecification spec) {
    var handler = spec.callHandler();
    return new SyncToolSpecification(
        spec.tool(),
        (exchange, request) -> {
          String tenant;
          try {
            tenant = tenants.resolve(exchange.transportContext());
          } catch (RuntimeException e) {
            tenant = null;
          }
          if (tenant == null || tenant.isEmpty()) {
            return Results.notRun(
                McpGateErrors.TENANT_UNKNOWN,
                "The server could not tell which account this"
                    + " call belongs to, so it did not run it. Send the X-Tenant header.");
          }
          try {
            // the library's rule for a tenant (1 to 255 characters, no control characters),
            // which the tables' tenant columns also hold: ungated tools are refused alike
            ClaimId.validateWithoutEcho(tenant, "tenant");
          } catch (InvalidIdempotencyKeyException e) {
            return Results.notRun(
                McpGateErrors.TENANT_INVALID,
                "The server could not use the account this call belongs to ("
                    + e.getMessage()
                    + "), so it did not run it. Send an X-Tenant of at most 247 characters.");
          }
          return handler.apply(exchange, request);
        });
  }

  /** Gates the tool with the policy, unless the configuration leaves it ungated. */
  SyncToolSpecification gate(SyncToolSpecification spec, ToolPolicy policy) {
    return ungated.contains(spec.tool().name()) ? spec : mcpGate.gate(spec, policy);
  }

  boolean isUngated(String tool) {
    return ungated.contains(tool);
  }

  void executed(String tool) {
    executions.computeIfAbsent(tool, t -> new AtomicInteger()).incrementAndGet();
  }

  /**
   * @return how many times the tool's handler ran
   */
  int executions(String tool) {
    AtomicInteger n = executions.get(tool);
    return n == null ? 0 : n.get();
  }

  String tenant(McpSyncServerExchange exchange) {
    String tenant = tenants.resolve(exchange.transportContext());
    if (tenant == null || tenant.isBlank()) {
      throw new IllegalStateException("no tenant for this call");
    }
    return tenant;
  }

  /**
   * @return a description of where claims are kept, for the logs
   */
  String storeDescription() {
    if (jdbcStore != null) {
      return jdbcStore.dialect() + " table " + jdbcStore.tableName();
    }
    return redis != null
        ? "Redis"
        : "DynamoDB table " + ((DynamoDbIdempotencyStore) store).tableName();
  }

  @Override
  public void close() {
    purger.close();
    gate.close(); // stops its lease-renewal thread
    audit.close();
    if (dynamo != null) {
      dynamo.close();
    }
    if (redis != null) {
      redis.close();
    }
    dataSource.close();
  }
}
