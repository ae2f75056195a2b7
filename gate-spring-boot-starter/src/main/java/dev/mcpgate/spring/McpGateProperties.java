package dev.mcpgate.spring;

import static org.springframework.core.NestedExceptionUtils.getMostSpecificCause;

import dev.mcpgate.core.GatePolicy;
import dev.mcpgate.core.GateSettings;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.BindException;
import org.springframework.boot.context.properties.bind.Binder;

/**
 * The mcpgate.* properties. Every one has a default; a Spring AI MCP server with the starter and a
 * DataSource needs none of them. The gate's settings are {@link GateSettings}'s ({@link #policy}).
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
   * missing), a DynamoDB store's table and its keys, with a probe item claimed, renewed and
   * released (warning when TTL is off), a Redis store's every node (warning when its
   * maxmemory-policy can evict claims). False lets the server start while its store is down; the
   * first call finds out then.
   */
  private boolean verifySchema = true;

  /**
   * Make Spring AI's MCP server read decimals as BigDecimal (it reads them as double), so that
   * gated arguments such as 9007199254740993.0 and 9007199254740992.0 are told apart instead of one
   * call replaying the other's result. Tools that take a double still get one; a Number or
   * BigDecimal parameter gets the exact value.
   */
  private boolean exactNumbers = false;

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
   * @param binder the application's ({@code Binder.get(environment)})
   * @return {@link GatePolicy#defaults()} with the {@link GateSettings} record bound at {@code
   *     mcpgate}: each component is the property of its name, none named here; unset, inherited
   * @throws IllegalArgumentException naming the property out of range, or two that disagree
   */
  public static GatePolicy policy(Binder binder) {
    try {
      return GatePolicy.defaults().with(binder.bindOrCreate("mcpgate", GateSettings.class));
    } catch (BindException e) {
      throw new IllegalArgumentException(
          "mcpgate.* property out of range: " + getMostSpecificCause(e).getMessage(), e);
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
   * Refuses the old name, so that a configuration that still sets it fails instead of being
   * ignored.
   *
   * @param ignored the old property's value
   * @throws IllegalArgumentException always, naming the new property
   * @deprecated {@code mcpgate.create-schema} is {@code mcpgate.create-schema-if-missing}
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
