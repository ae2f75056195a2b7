package dev.mcpgate.redis;

import static java.util.Objects.requireNonNull;

import dev.mcpgate.core.ClaimId;
import dev.mcpgate.core.LeaseToken;
import dev.mcpgate.core.StoreUnavailableException;
import dev.mcpgate.core.spi.ClaimAttempt;
import dev.mcpgate.core.spi.ClaimRecord;
import dev.mcpgate.core.spi.ClaimRequest;
import dev.mcpgate.core.spi.ExtendedLeases;
import dev.mcpgate.core.spi.HeldLease;
import dev.mcpgate.core.spi.IdempotencyStore;
import dev.mcpgate.core.spi.StoreArguments;
import dev.mcpgate.core.spi.StoredResult;
import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The Redis (and Valkey) store: one hash per claim, every operation one server-side script, so a
 * replay is one round trip in memory and a fresh call two.
 *
 * <pre>{@code
 * RedisURI uri = RedisURI.create("redis://127.0.0.1:6379");
 * RedisIdempotencyStore store = RedisIdempotencyStore.builder(uri)
 *     .keyPrefix("mcpgate:")          // the default
 *     .build();
 * ...
 * store.verify();                     // optional startup check: connects, warns on eviction
 * store.close();                      // closes the connections (and the client it made)
 *
 * // a Redis Cluster: each claim's script runs on the master of its key's slot
 * RedisIdempotencyStore cluster = RedisIdempotencyStore.clusterBuilder(
 *     List.of(RedisURI.create("redis://10.0.0.1:6379"), RedisURI.create("redis://10.0.0.2:6379")))
 *     .build();
 * }</pre>
 *
 * <ul>
 *   <li>claim, complete, release, extend and mark-unknown are each one script ({@code EVALSHA}),
 *       atomic on the server; complete and release are conditional on the lease token; the claim
 *       follows the SPI's one takeover rule.
 *   <li>The gate's renewals ({@link #extendLeases}) go over a connection of their own, one pipeline
 *       of per-key scripts: one round trip however many leases. Each call answers within the
 *       deadline the gate gives it, per key; a connection that timed out is closed and the next
 *       call opens a new one.
 *   <li>{@link #verify()} warns when the server's {@code maxmemory-policy} lets Redis evict claims
 *       (anything but {@code noeviction}).
 *   <li>The decision clock is the server's ({@code TIME} inside the script), not the JVM's.
 *   <li>Retention and lease are the key's own expiry: Redis removes a claim by itself, a grace
 *       after it expired ({@link Builder#expiryGrace}); {@link #purgeExpired} removes them sooner.
 *   <li>All of a claim is one key, so every script touches one hash slot. Tenant, tool and key are
 *       length-prefixed and written losslessly in the key, so no two identities share one. On a
 *       cluster ({@link #builder(RedisClusterClient)}, {@link #clusterBuilder}) the key carries a
 *       hash tag after the prefix, so claims spread evenly over the slots; the single-node layout
 *       has none (the two layouts do not read each other's keys).
 *   <li>Durability is Redis's: with AOF {@code everysec}, or a failover to a replica that had not
 *       received the last writes, a claim can vanish, and a retry then runs again. See
 *       docs/stores.md for when to pick Redis and when a database.
 *   <li>A Redis that cannot be reached fails closed: {@link StoreUnavailableException}, the action
 *       did not run. The store built from a {@link RedisURI} rejects commands at once while
 *       disconnected (and reconnects by itself); one built on your {@link RedisClient} follows that
 *       client's options.
 * </ul>
 */
public final class RedisIdempotencyStore implements IdempotencyStore, AutoCloseable {
  private final LazyLink link;
  private final AbstractRedisClient ownedClient;
  private final RenewalPipeline renewals;
  private final ClaimKeys keys;
  private final ClaimScripts scripts;

  private RedisIdempotencyStore(
      Builder b, Connector connector, ClaimKeys keys, AbstractRedisClient owned) {
    this.link = new LazyLink(connector);
    this.renewals = new RenewalPipeline(connector::connectRenewals);
    this.ownedClient = owned;
    this.keys = keys;
    this.scripts = new ClaimScripts(link, renewals, keys, b.grace, b.timeout);
  }

  /**
   * Connects now, if the store has not yet, reads the server's clock, and checks that Redis will
   * not evict claims: a check for startup, since building a store does not connect. On a cluster it
   * also checks that the cluster serves every slot ({@code cluster_state:ok}) and that every master
   * answers. A {@code maxmemory-policy} other than {@code noeviction} (on any master) is logged as
   * a warning (see {@code NodeChecks}). A store built for one server refuses a server that is a
   * node of a Redis Cluster.
   *
   * @throws StoreUnavailableException naming why Redis (or which cluster node) cannot be used
   * @throws IllegalStateException when a store built for one server finds a cluster node
   */
  public void verify() {
    now();
    NodeChecks.checkEveryNode(link);
  }

  /**
   * A store on its own client for {@code uri}: commands are rejected at once while disconnected (so
   * an unreachable Redis fails closed without waiting), time out after 5 s, and the client
   * reconnects by itself.
   *
   * @param uri where Redis is ({@code redis://host:6379}, {@code rediss://...}, Sentinel URIs)
   * @return a builder
   */
  public static Builder builder(RedisURI uri) {
    return new Builder(requireNonNull(uri, "uri must not be null"), null, null, null);
  }

  /**
   * A store on your client, with your client's options; {@link #close()} closes only the connection
   * the store opened.
   *
   * @param client a Lettuce client
   * @return a builder
   */
  public static Builder builder(RedisClient client) {
    return new Builder(null, requireNonNull(client, "client must not be null"), null, null);
  }

  /**
   * A store on your Redis Cluster client, with your client's options (give it {@link
   * ClusterTopologyRefreshOptions} with adaptive refresh, so it follows a failover at once); {@link
   * #close()} closes only the connections the store opened. Claim keys use the cluster layout (a
   * hash tag after the prefix), which spreads claims over every slot.
   *
   * @param client a Lettuce cluster client
   * @return a builder
   */
  public static Builder builder(RedisClusterClient client) {
    return new Builder(null, null, null, requireNonNull(client, "client must not be null"));
  }

  /**
   * A store on its own Redis Cluster client, seeded by {@code seeds} (any reachable nodes; the
   * client discovers the rest): commands are rejected at once while a node is disconnected (the
   * gate fails closed), time out after the command timeout, the topology is reloaded on {@code
   * MOVED}/{@code ASK} and reconnects and every 30 s, and the client reconnects by itself. Claim
   * keys use the cluster layout, as for {@link #builder(RedisClusterClient)}.
   *
   * @param seeds one or more nodes of the cluster ({@code redis://host:port}, {@code rediss://})
   * @return a builder
   * @throws IllegalArgumentException when {@code seeds} is empty
   */
  public static Builder clusterBuilder(Iterable<RedisURI> seeds) {
    requireNonNull(seeds, "seeds must not be null");
    List<RedisURI> list = new ArrayList<>();
    seeds.forEach(u -> list.add(requireNonNull(u, "seed must not be null")));
    if (list.isEmpty()) {
      throw new IllegalArgumentException("clusterBuilder needs at least one seed node, was none");
    }
    return new Builder(null, null, List.copyOf(list), null);
  }

  @Override
  public ClaimAttempt claim(ClaimRequest r) {
    requireNonNull(r, "request must not be null");
    return scripts.claim(r);
  }

  @Override
  public boolean complete(ClaimId id, LeaseToken token, StoredResult result, Duration retention) {
    requireNonNull(result, "result must not be null");
    StoreArguments.atLeastOneMs(retention, "retention");
    return scripts.complete(id, token, result, retention);
  }

  @Override
  public boolean release(ClaimId id, LeaseToken token) {
    return scripts.release(id, token);
  }

  @Override
  public boolean extendLease(ClaimId id, LeaseToken token, Duration lease) {
    StoreArguments.atLeastOneMs(lease, "lease");
    return scripts.extend(id, token, lease);
  }

  /**
   * Extends every lease by the rule of {@link #extendLease}: one {@code EVALSHA} per key, all in
   * one pipeline on the renewals' own connection, so n leases cost one round trip (two after a
   * server that forgot the script). Each script touches one key, so it stays in that key's slot.
   * Every wait is bounded by {@code within} (opening the connection included): a key that did not
   * answer by then (a slow node of a cluster, say), or whose script failed, is undecided, and the
   * keys that answered are told; a connection that timed out or failed is closed and the next call
   * opens a fresh one ({@link RenewalPipeline}). Calls may run concurrently.
   *
   * @throws StoreUnavailableException if Redis could not be asked within {@code within}, or no key
   *     answered: every lease is then undecided
   */
  @Override
  public ExtendedLeases extendLeases(List<HeldLease> leases, Duration lease, Duration within) {
    requireNonNull(leases, "leases must not be null");
    StoreArguments.atLeastOneMs(lease, "lease");
    StoreArguments.atLeastOneMs(within, "within");
    if (leases.isEmpty()) {
      return ExtendedLeases.of(Set.of());
    }
    return scripts.extendAll(leases, lease, within);
  }

  @Override
  public boolean markUnknown(ClaimId id, LeaseToken token, Duration fence) {
    StoreArguments.atLeastOneMs(fence, "fence");
    return scripts.markUnknown(id, token, fence);
  }

  @Override
  public Optional<ClaimRecord> find(ClaimId id) {
    requireNonNull(id, "id must not be null");
    List<Object> fields =
        link.call(
            "read " + id,
            l ->
                l.hmget(keys.of(id), ClaimFields.NAMES).stream()
                    .map(kv -> (Object) kv.getValueOrElse(null))
                    .toList());
    return fields.get(1) == null ? Optional.empty() : Optional.of(ClaimFields.row(id, fields));
  }

  /**
   * Deletes at most {@code limit} expired claims, found by {@code SCAN} over the key prefix, each
   * deleted by a script that re-checks its expiry on the server's clock (a claim taken over since
   * the scan stays). Redis removes expired claims by itself a grace after their expiry; this is for
   * the SPI and for sooner cleaning.
   */
  @Override
  public int purgeExpired(int limit) {
    if (limit < 1) {
      throw new IllegalArgumentException("limit must be at least 1, was " + limit);
    }
    int deleted = 0;
    ScanCursor cursor = ScanCursor.INITIAL;
    ScanArgs args = ScanArgs.Builder.matches(keys.pattern()).limit(500);
    do {
      ScanCursor from = cursor;
      KeyScanCursor<byte[]> page = link.call("scan for expired claims", l -> l.scan(from, args));
      for (byte[] key : page.getKeys()) {
        if (deleted >= limit) {
          return deleted;
        }
        if (scripts.purge(key)) {
          deleted++;
        }
      }
      cursor = page;
    } while (!cursor.isFinished() && deleted < limit);
    return deleted;
  }

  /**
   * {@inheritDoc}
   *
   * <p>Redis's {@code TIME}. On a cluster: of the connection's default node. Every claim decision
   * reads the clock of the node that holds the claim, inside its script; this reading is for the
   * gate's waits and reports only.
   */
  @Override
  public Instant now() {
    List<byte[]> time = link.call("read the clock", RedisLink::time);
    return Instant.ofEpochSecond(
            ClaimFields.number(time.get(0)), ClaimFields.number(time.get(1)) * 1000)
        .truncatedTo(ChronoUnit.MILLIS);
  }

  /** Closes the store's connections, and the client if the store made it. */
  @Override
  public void close() {
    link.close();
    renewals.close();
    if (ownedClient != null) {
      ownedClient.shutdown();
    }
  }

  /** Builds a Redis store; every setter checks its argument. */
  public static final class Builder {
    private final RedisURI uri;
    private final RedisClient client;
    private final List<RedisURI> clusterSeeds;
    private final RedisClusterClient clusterClient;
    private String prefix = "mcpgate:";
    private Duration grace = Duration.ofMinutes(1);
    private Duration timeout = Duration.ofSeconds(5);

    private Builder(
        RedisURI uri,
        RedisClient client,
        List<RedisURI> clusterSeeds,
        RedisClusterClient clusterClient) {
      this.uri = uri;
      this.client = client;
      this.clusterSeeds = clusterSeeds;
      this.clusterClient = clusterClient;
    }

    /**
     * @param prefix what every claim key starts with; {@code mcpgate:} by default. Stores sharing
     *     one Redis need prefixes of which neither begins the other. On a cluster it must not
     *     contain <code>{</code> (it would become the hash tag and put every claim in one slot):
     *     {@link #build()} refuses it
     */
    public Builder keyPrefix(String prefix) {
      requireNonNull(prefix, "prefix must not be null");
      if (prefix.isEmpty()) {
        throw new IllegalArgumentException(
            "keyPrefix must not be empty: the store's keys must"
                + " be told from the application's");
      }
      this.prefix = prefix;
      return this;
    }

    /**
     * @param grace how long after its expiry a claim stays in Redis before Redis removes it (an
     *     expired claim is free for a new call at once; the grace only keeps it readable for
     *     operators and {@link #purgeExpired}); 1 minute by default, zero or more
     */
    public Builder expiryGrace(Duration grace) {
      if (requireNonNull(grace, "grace must not be null").isNegative()) {
        throw new IllegalArgumentException("grace must not be negative, was " + grace);
      }
      this.grace = grace;
      return this;
    }

    /**
     * @param timeout how long a command may take before it fails (and the gate fails closed); 5 s
     *     by default; only for a store that makes its own client ({@link RedisURI}, {@link
     *     RedisIdempotencyStore#clusterBuilder}); also how long a claim whose reply was lost waits
     *     for its connection to send it again (on any client)
     */
    public Builder commandTimeout(Duration timeout) {
      this.timeout = StoreArguments.atLeastOneMs(timeout, "timeout");
      return this;
    }

    /**
     * Builds the store without connecting: the first command connects (and a failed connection is
     * tried again by the next one), so a service can start while Redis is down. Call {@link
     * RedisIdempotencyStore#verify()} for a startup check.
     *
     * @return the store
     * @throws IllegalArgumentException when a cluster store's prefix contains <code>{</code>
     */
    public RedisIdempotencyStore build() {
      if (client != null) {
        return new RedisIdempotencyStore(this, Connector.of(client), new ClaimKeys(prefix), null);
      }
      if (uri != null) {
        RedisClient own = RedisClient.create(Connector.boundedBy(uri, timeout));
        own.setOptions(
            ClientOptions.builder()
                .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
                .timeoutOptions(TimeoutOptions.enabled(timeout))
                .build());
        return new RedisIdempotencyStore(this, Connector.of(own), new ClaimKeys(prefix), own);
      }
      ClaimKeys clusterKeys = ClaimKeys.hashTagged(prefix);
      if (clusterClient != null) {
        return new RedisIdempotencyStore(this, Connector.of(clusterClient), clusterKeys, null);
      }
      List<RedisURI> seeds = new ArrayList<>();
      clusterSeeds.forEach(u -> seeds.add(Connector.boundedBy(u, timeout)));
      RedisClusterClient own = RedisClusterClient.create(seeds);
      own.setOptions(
          ClusterClientOptions.builder()
              .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
              .timeoutOptions(TimeoutOptions.enabled(timeout))
              .topologyRefreshOptions(
                  ClusterTopologyRefreshOptions.builder()
                      .enableAllAdaptiveRefreshTriggers()
                      .enablePeriodicRefresh(Duration.ofSeconds(30))
                      .build())
              .build());
      return new RedisIdempotencyStore(this, Connector.of(own), clusterKeys, own);
    }
  }
}
