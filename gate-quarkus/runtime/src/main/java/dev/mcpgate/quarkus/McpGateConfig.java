package dev.mcpgate.quarkus;

import io.quarkus.runtime.annotations.ConfigPhase;
import io.quarkus.runtime.annotations.ConfigRoot;
import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import java.time.Duration;
import java.util.Optional;

/**
 * The {@code mcpgate.*} settings of a Quarkus application, read at startup. The store is the
 * application's default data source (Agroal: PostgreSQL, MariaDB, H2) unless {@code
 * mcpgate.store=redis} (gate-redis at {@code mcpgate.redis.url}) or {@code memory}.
 */
@ConfigMapping(prefix = "mcpgate")
@ConfigRoot(phase = ConfigPhase.RUN_TIME)
public interface McpGateConfig {

  /** Where claims are kept. */
  enum Store {
    /** The application's default data source; startup fails without one. */
    AUTO,
    /** The application's default data source (gate-jdbc). */
    JDBC,
    /**
     * Redis at {@code mcpgate.redis.url} (gate-redis, which the application adds, with Lettuce
     * 6.8.1 on Quarkus' Netty 4.1); never chosen by {@code auto}.
     */
    REDIS,
    /** Memory: for a test or a demo only; forgotten on restart and not shared between replicas. */
    MEMORY
  }

  /** Where claims are kept. */
  @WithDefault("auto")
  Store store();

  /** The claims table of a JDBC store. */
  @WithDefault("mcpgate_claims")
  String tableName();

  /**
   * Whether to create the claims table at startup when it is missing (else startup fails and names
   * the DDL).
   */
  @WithDefault("false")
  boolean createSchemaIfMissing();

  /**
   * Whether to check the claims table (and the store's reach) at startup, so that a missing table
   * stops the startup instead of the first call.
   */
  @WithDefault("true")
  boolean verifySchema();

  /**
   * Whether to hash decimal arguments that arrive as {@code double} as they are (nearby numbers
   * then hash alike); false refuses such calls with {@code arguments_invalid}.
   */
  @WithDefault("false")
  boolean acceptInexactNumbers();

  /** Where a call's tenant comes from. */
  Tenant tenant();

  /** The Redis store ({@code mcpgate.store=redis}). */
  Redis redis();

  /** The scheduled purge of expired claims of a JDBC store. */
  Purge purge();

  /** What the gate does when the application stops. */
  Shutdown shutdown();

  /**
   * When the application stops, the gate refuses new gated calls ({@code
   * idempotency_store_unavailable}: not run, safe to retry with the same key) and waits for the
   * gated calls in flight, renewing their leases, before it closes.
   */
  interface Shutdown {
    /**
     * How long to wait at most for gated calls in flight; a call still running after it loses its
     * lease renewals (logged at WARN), so a retry elsewhere may take its key over after one lease.
     */
    @WithDefault("10s")
    Duration drainTimeout();
  }

  /**
   * Where a call's tenant comes from: a constant (a single-user stdio server), or else the
   * authenticated principal ({@code SecurityIdentity}). A source that finds nothing refuses the
   * call; it never falls back to another.
   */
  interface Tenant {
    /**
     * The one tenant of a single-user server, stored as {@code constant:} and the value; when set,
     * the principal is not read.
     */
    Optional<String> constant();

    /**
     * Whether the tenant is the authenticated principal's name ({@code principal:} and the name);
     * an anonymous call is then refused.
     */
    @WithDefault("true")
    boolean fromPrincipal();
  }

  /** The Redis store: where it is, and what its keys start with. */
  interface Redis {
    /**
     * Where Redis is ({@code redis://host:6379}, {@code rediss://...}); with {@code
     * mcpgate.redis.cluster=true}, one or more seed nodes of a Redis Cluster, comma-separated.
     */
    Optional<String> url();

    /** Whether {@code mcpgate.redis.url} names nodes of a Redis Cluster. */
    @WithDefault("false")
    boolean cluster();

    /**
     * What every claim key starts with ({@code mcpgate:} when unset); in a cluster, without a hash
     * tag (no opening brace): the store adds its own.
     */
    Optional<String> keyPrefix();
  }

  /** The purge of expired claims (JDBC stores). */
  interface Purge {
    /** Whether to purge expired claims on a schedule. */
    @WithDefault("true")
    boolean enabled();

    /** How often. */
    @WithDefault("5m")
    Duration interval();

    /** How many rows one purge statement deletes at most. */
    @WithDefault("500")
    int batchSize();
  }
}
