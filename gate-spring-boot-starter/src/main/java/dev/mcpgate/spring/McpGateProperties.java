package dev.mcpgate.spring;

import dev.mcpgate.core.GatePolicy;
import dev.mcpgate.core.GateSettings;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * The mcpgate.* properties. Every one has a default; a Spring AI MCP server with the starter and a
 * DataSource needs none of them.
 */
@ConfigurationProperties(prefix = "mcpgate")
public class McpGateProperties {

  /** Where claims live. */
  public enum StoreType {
    /**
     * The application's DataSource, else its DynamoDbClient, else Redis (a Lettuce client bean, or
     * mcpgate.redis.url); fails at startup with none.
     */
    AUTO,
    /** The application's DataSource (gate-jdbc). */
    JDBC,
    /** The application's DynamoDbClient (gate-dynamodb). */
    DYNAMODB,
    /**
     * Redis (gate-redis): the application's Lettuce RedisClusterClient or RedisClient bean, else a
     * client of the store's own for mcpgate.redis.url.
     */
    REDIS,
    /** In memory: for tests and single-process demos; nothing survives a restart. */
    MEMORY
  }

  /** False turns the starter off. */
  private boolean enabled = true;

  /** Where claims live. */
  private StoreType store = StoreType.AUTO;

  /** The claims table (JDBC and DynamoDB). */
  private String tableName = "mcpgate_claims";

  /**
   * Create the claims table at startup when it is missing (JDBC, with its procedures on
   * MariaDB/MySQL, or DynamoDB), and the audit table with mcpgate.audit.enabled. The stores'
   * builders name it createSchemaIfMissing too.
   */
  private boolean createSchemaIfMissing = false;

  /**
   * Connect to the store at startup and check it: a JDBC store's claims table (creating it first
   * with mcpgate.create-schema-if-missing; startup fails naming the table and its DDL when it is
   * missing), a Redis store's every node (warning when its maxmemory-policy can evict claims).
   * False lets the server start while its store is down; the first call finds out then.
   */
  private boolean verifySchema = true;

  /**
   * Make Spring AI's MCP server read decimals as BigDecimal (it reads them as double), so that
   * gated arguments such as 9007199254740993.0 and 9007199254740992.0 are told apart instead of one
   * call replaying the other's result. Tools that take a double still get one; a Number or
   * BigDecimal parameter gets the exact value.
   */
  private boolean exactNumbers = false;

  // The gate's settings: one property per GateSettings value, each unset (null) by default and
  // then GatePolicy.defaults()'s; resolved by GatePolicy.with, as a tool's settings are.

  /** How long a completed result is replayed (24 h if unset). */
  private Duration retention;

  /** How long an attempt holds its key unless renewed (5 s if unset). */
  private Duration lease;

  /**
   * How often a running action's lease is renewed (zero: never); a quarter of the lease if unset.
   */
  private Duration leaseRenewal;

  /** How long a call waits for another attempt with the same key (5 s if unset). */
  private Duration inFlightWait;

  /** What a failure result (isError) does to the claim (release if unset). */
  private GatePolicy.FailureMode failureMode;

  /** The largest encoded result stored, in bytes (256 KiB if unset). */
  private Integer maxResultBytes;

  /** Top-level argument names left out of every tool's argument hash (none if unset). */
  private Set<String> ignoredArguments = new LinkedHashSet<>();

  /**
   * How long a key whose outcome is unknown stays fenced when nobody settles it (the retention if
   * unset).
   */
  private Duration unknownFence;

  /** Fail at startup when a write tool is neither gated nor listed in mcpgate.safe-tools. */
  private boolean requireGatedWrites = false;

  /**
   * Where keys come from, for the tools whose @Idempotent leaves keySources at its default
   * (argument, then meta); empty keeps the annotation's.
   */
  private List<dev.mcpgate.mcp.KeySource> keySources = new ArrayList<>();

  /** Write tools that are safe to run twice by themselves, so need no gate. */
  private List<String> safeTools = new ArrayList<>();

  /** Where the tenant of a call comes from. */
  private final Tenant tenant = new Tenant();

  /** The audit trail. */
  private final Audit audit = new Audit();

  /** The scheduled purge of expired claims (JDBC). */
  private final Purge purge = new Purge();

  private final Redis redis = new Redis();

  /** The Redis store (mcpgate.store=redis, or auto with no DataSource or DynamoDbClient). */
  public static class Redis {
    /**
     * Where Redis is (redis://host:6379, rediss://...), when the application has no Lettuce client
     * bean; with mcpgate.redis.cluster, one or more seed nodes, comma-separated.
     */
    private String url;

    /** True when mcpgate.redis.url names nodes of a Redis Cluster. */
    private boolean cluster;

    /**
     * What every claim key starts with (mcpgate: if unset); in a cluster without a hash tag ({).
     */
    private String keyPrefix;

    public String getUrl() {
      return url;
    }

    public void setUrl(String url) {
      this.url = url;
    }

    public boolean isCluster() {
      return cluster;
    }

    public void setCluster(boolean cluster) {
      this.cluster = cluster;
    }

    public String getKeyPrefix() {
      return keyPrefix;
    }

    public void setKeyPrefix(String keyPrefix) {
      this.keyPrefix = keyPrefix;
    }
  }

  public Redis getRedis() {
    return redis;
  }

  /**
   * mcpgate.purge.*: the scheduled purge of expired claims, on a thread of its own, for a JDBC
   * store (Redis keys and DynamoDB items expire by themselves). Without it, rows of expired claims
   * stay in the table: they never block a claim, but the table grows.
   */
  public static class Purge {
    /** Purge expired claims on a schedule (JDBC store only). */
    private boolean enabled = true;

    /** Time between purge rounds. */
    private Duration interval = Duration.ofMinutes(5);

    /** The most rows one purge statement deletes; a round repeats until one comes back short. */
    private int batchSize = 500;

    public boolean isEnabled() {
      return enabled;
    }

    public void setEnabled(boolean enabled) {
      this.enabled = enabled;
    }

    public Duration getInterval() {
      return interval;
    }

    public void setInterval(Duration interval) {
      this.interval = interval;
    }

    public int getBatchSize() {
      return batchSize;
    }

    public void setBatchSize(int batchSize) {
      this.batchSize = batchSize;
    }
  }

  /**
   * @return mcpgate.purge.*
   */
  public Purge getPurge() {
    return purge;
  }

  /** The audit trail: one row per decision in a table beside the claims. */
  public static class Audit {
    /** Write the audit trail to a table on the DataSource. */
    private boolean enabled;

    /** The audit table. */
    private String tableName = "mcpgate_audit";

    public boolean isEnabled() {
      return enabled;
    }

    public void setEnabled(boolean enabled) {
      this.enabled = enabled;
    }

    public String getTableName() {
      return tableName;
    }

    public void setTableName(String tableName) {
      this.tableName = tableName;
    }
  }

  public Audit getAudit() {
    return audit;
  }

  /**
   * Where the tenant of a call comes from. One source, unless sources lists several in order; a
   * source that finds nothing refuses the call (tenant_unknown), never falling back to another one
   * that is not listed after it. A tenant carries its source: principal:acme, header:acme and
   * constant:acme are three tenants.
   */
  public static class Tenant {
    /**
     * The authenticated Spring Security principal's name, when Spring Security is there. Without
     * sources, the principal is the one source whenever this is true and Spring Security is on the
     * class path, even if a header or a constant is set too.
     */
    private boolean fromPrincipal = true;

    /**
     * A request header that carries the tenant. Trust it only behind a gateway that sets it and
     * strips it from what clients send. Without sources, the one source when there is no principal
     * source.
     */
    private String header;

    /** One tenant for every call (a single-tenant server); the one source when nothing else is. */
    private String constant;

    /**
     * The sources to ask, in this order, for example principal,header: the first that finds a
     * tenant gives it. Empty (the default): one source, the first configured of principal, header
     * and constant.
     */
    private List<Source> sources = new ArrayList<>();

    /** A source of tenants. */
    public enum Source {
      /** The authenticated Spring Security principal's name. */
      PRINCIPAL,
      /** The request header mcpgate.tenant.header. */
      HEADER,
      /** The constant mcpgate.tenant.constant. */
      CONSTANT
    }

    public List<Source> getSources() {
      return sources;
    }

    public void setSources(List<Source> sources) {
      this.sources = sources == null ? new ArrayList<>() : new ArrayList<>(sources);
    }

    public boolean isFromPrincipal() {
      return fromPrincipal;
    }

    public void setFromPrincipal(boolean fromPrincipal) {
      this.fromPrincipal = fromPrincipal;
    }

    public String getHeader() {
      return header;
    }

    public void setHeader(String header) {
      this.header = header;
    }

    public String getConstant() {
      return constant;
    }

    public void setConstant(String constant) {
      this.constant = constant;
    }
  }

  /**
   * @return the gate's settings these properties set (the unset ones inherited)
   * @throws IllegalArgumentException naming the property whose value is out of range
   */
  public GateSettings toSettings() {
    try {
      // the record checks each value that is set; the unset (null) ones are inherited
      return new GateSettings(
          retention,
          lease,
          leaseRenewal,
          inFlightWait,
          failureMode,
          maxResultBytes,
          ignoredArguments,
          unknownFence);
    } catch (IllegalArgumentException | NullPointerException e) {
      throw new IllegalArgumentException("mcpgate.* property out of range: " + e.getMessage(), e);
    }
  }

  /**
   * @return the gate policy these properties give: {@link GatePolicy#defaults()} with {@link
   *     #toSettings()}
   * @throws IllegalArgumentException naming what is out of range
   */
  public GatePolicy toPolicy() {
    GateSettings settings = toSettings();
    try {
      return GatePolicy.defaults().with(settings);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("mcpgate.* properties disagree: " + e.getMessage(), e);
    }
  }

  public boolean isEnabled() {
    return enabled;
  }

  public void setEnabled(boolean enabled) {
    this.enabled = enabled;
  }

  public StoreType getStore() {
    return store;
  }

  public void setStore(StoreType store) {
    this.store = store;
  }

  public String getTableName() {
    return tableName;
  }

  public void setTableName(String tableName) {
    this.tableName = tableName;
  }

  public boolean isVerifySchema() {
    return verifySchema;
  }

  public void setVerifySchema(boolean verifySchema) {
    this.verifySchema = verifySchema;
  }

  public boolean isExactNumbers() {
    return exactNumbers;
  }

  public void setExactNumbers(boolean exactNumbers) {
    this.exactNumbers = exactNumbers;
  }

  /**
   * Refuses the property's old name, so that a configuration that still sets it fails at startup
   * instead of being ignored.
   *
   * @param ignored the old property's value
   * @throws IllegalArgumentException always, naming the new property
   * @deprecated {@code mcpgate.create-schema} is {@code mcpgate.create-schema-if-missing}, the name
   *     the stores' builders use
   */
  @Deprecated
  public void setCreateSchema(String ignored) {
    throw new IllegalArgumentException(
        "mcpgate.create-schema was renamed mcpgate.create-schema-if-missing (the name of the"
            + " stores' builder option); set that instead");
  }

  public boolean isCreateSchemaIfMissing() {
    return createSchemaIfMissing;
  }

  public void setCreateSchemaIfMissing(boolean createSchemaIfMissing) {
    this.createSchemaIfMissing = createSchemaIfMissing;
  }

  public Duration getRetention() {
    return retention;
  }

  public void setRetention(Duration retention) {
    this.retention = retention;
  }

  public Duration getLease() {
    return lease;
  }

  public void setLease(Duration lease) {
    this.lease = lease;
  }

  public Duration getLeaseRenewal() {
    return leaseRenewal;
  }

  public void setLeaseRenewal(Duration leaseRenewal) {
    this.leaseRenewal = leaseRenewal;
  }

  public Duration getInFlightWait() {
    return inFlightWait;
  }

  public void setInFlightWait(Duration inFlightWait) {
    this.inFlightWait = inFlightWait;
  }

  public GatePolicy.FailureMode getFailureMode() {
    return failureMode;
  }

  public void setFailureMode(GatePolicy.FailureMode failureMode) {
    this.failureMode = failureMode;
  }

  public Integer getMaxResultBytes() {
    return maxResultBytes;
  }

  public void setMaxResultBytes(Integer maxResultBytes) {
    this.maxResultBytes = maxResultBytes;
  }

  public Set<String> getIgnoredArguments() {
    return ignoredArguments;
  }

  public void setIgnoredArguments(Set<String> ignoredArguments) {
    this.ignoredArguments = ignoredArguments;
  }

  public Duration getUnknownFence() {
    return unknownFence;
  }

  public void setUnknownFence(Duration unknownFence) {
    this.unknownFence = unknownFence;
  }

  public boolean isRequireGatedWrites() {
    return requireGatedWrites;
  }

  public void setRequireGatedWrites(boolean requireGatedWrites) {
    this.requireGatedWrites = requireGatedWrites;
  }

  public List<dev.mcpgate.mcp.KeySource> getKeySources() {
    return keySources;
  }

  public void setKeySources(List<dev.mcpgate.mcp.KeySource> keySources) {
    this.keySources = keySources;
  }

  public List<String> getSafeTools() {
    return safeTools;
  }

  public void setSafeTools(List<String> safeTools) {
    this.safeTools = safeTools;
  }

  public Tenant getTenant() {
    return tenant;
  }
}
