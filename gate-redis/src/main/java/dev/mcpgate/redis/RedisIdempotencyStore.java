package dev.mcpgate.redis;

import static java.util.Objects.requireNonNull;

import dev.mcpgate.core.ClaimId;
import dev.mcpgate.core.LeaseToken;
import dev.mcpgate.core.StoreUnavailableException;
import dev.mcpgate.core.spi.ClaimAttempt;
import dev.mcpgate.core.spi.ClaimRecord;
import dev.mcpgate.core.spi.ClaimRequest;
import dev.mcpgate.core.spi.ClaimState;
import dev.mcpgate.core.spi.ExtendedLeases;
import dev.mcpgate.core.spi.HeldLease;
import dev.mcpgate.core.spi.IdempotencyStore;
import dev.mcpgate.core.spi.StoreArguments;
import dev.mcpgate.core.spi.StoredResult;
import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

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
  private static final Logger LOG = LoggerFactory.getLogger(RedisIdempotencyStore.class);
  private static final String MAXMEMORY_POLICY = "maxmemory-policy";

  private final Connector connector;
  private final AbstractRedisClient ownedClient;
  private final Object connecting = new Object();
  private volatile RedisLink link;
  private final RenewalPipeline renewals;
  private final ClaimKeys keys;
  private final byte[] graceMs;
  private final ScriptRunner.Script claim;
  private final ScriptRunner.Script complete;
  private final ScriptRunner.Script release;
  private final ScriptRunner.Script extend;
  private final ScriptRunner.Script markUnknown;
  private final ScriptRunner.Script purge;

  private RedisIdempotencyStore(
      Builder b, Connector connector, ClaimKeys keys, AbstractRedisClient owned) {
    this.connector = connector;
    this.renewals = new RenewalPipeline(connector::connectRenewals);
    this.ownedClient = owned;
    this.keys = keys;
    this.graceMs = ascii(b.grace.toMillis());
    this.claim = ScriptRunner.Script.of(Scripts.CLAIM);
    this.complete = ScriptRunner.Script.of(Scripts.COMPLETE);
    this.release = ScriptRunner.Script.of(Scripts.RELEASE);
    this.extend = ScriptRunner.Script.of(Scripts.EXTEND);
    this.markUnknown = ScriptRunner.Script.of(Scripts.MARK_UNKNOWN);
    this.purge = ScriptRunner.Script.of(Scripts.PURGE);
  }

  /**
   * The connection, opened by the first command: a store can be built while Redis is down (a
   * service restarting during an outage), and a connection that failed is tried again by the next
   * command.
   */
  private RedisLink link() {
    RedisLink l = link;
    if (l != null) {
      return l;
    }
    synchronized (connecting) {
      if (link == null) {
        try {
          link = connector.connect();
        } catch (RedisException e) {
          throw new StoreUnavailableException("could not connect to Redis: " + e.getMessage(), e);
        }
      }
      return link;
    }
  }

  /**
   * Connects now, if the store has not yet, reads the server's clock, and checks that Redis will
   * not evict claims: a check for startup, since building a store does not connect. On a cluster it
   * also checks that the cluster serves every slot ({@code cluster_state:ok}) and that every master
   * answers. A {@code maxmemory-policy} other than {@code noeviction} (on any master) is logged as
   * a warning (see {@link #evictionWarning(String)}).
   *
   * @throws StoreUnavailableException naming why Redis (or which cluster node) cannot be used
   */
  public void verify() {
    now();
    Map<String, RedisCommands<byte[], byte[]>> nodes = call("reach every node", RedisLink::nodes);
    nodes.forEach(
        (node, redis) -> {
          call("reach " + where(node), l -> redis.ping());
          evictionWarning(node, redis).ifPresent(LOG::warn);
        });
  }

  private static String where(String node) {
    return node.isEmpty() ? "the server" : "the cluster master " + node;
  }

  /**
   * Reads one node's {@code maxmemory-policy}.
   *
   * @return the warning {@link #verify()} logs, or empty when the policy is {@code noeviction} or
   *     cannot be read (a managed Redis may refuse {@code CONFIG GET}; that is logged at INFO)
   */
  private static Optional<String> evictionWarning(
      String node, RedisCommands<byte[], byte[]> redis) {
    String policy;
    try {
      policy = redis.configGet(MAXMEMORY_POLICY).get(MAXMEMORY_POLICY);
    } catch (RedisException e) {
      LOG.info(
          "could not read {}'s {} ({}); make sure it is noeviction, or Redis may evict"
              + " claims under memory pressure",
          node.isEmpty() ? "Redis" : node,
          MAXMEMORY_POLICY,
          e.getMessage());
      return Optional.empty();
    }
    String warning = evictionWarning(policy);
    return Optional.ofNullable(
        warning == null || node.isEmpty() ? warning : "Cluster master " + node + ": " + warning);
  }

  /**
   * @param policy a {@code maxmemory-policy} value
   * @return the warning for it, or null for {@code noeviction} (and an unknown, null value)
   */
  static String evictionWarning(String policy) {
    if (policy == null || policy.equalsIgnoreCase("noeviction")) {
      return null;
    }
    String which =
        policy.toLowerCase(Locale.ROOT).startsWith("volatile-")
            ? " (claim keys carry a TTL, so volatile-* policies evict them too)"
            : "";
    return "Redis "
        + MAXMEMORY_POLICY
        + " is "
        + policy
        + which
        + ": under memory pressure"
        + " Redis may evict claims, and a retry of an evicted claim runs its action again."
        + " Set "
        + MAXMEMORY_POLICY
        + " noeviction on the server that holds claims"
        + " (docs/stores.md, Redis: Memory)";
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

  private static byte[] ascii(long value) {
    return Long.toString(value).getBytes(StandardCharsets.US_ASCII);
  }

  private static byte[] utf8(String value) {
    return value.getBytes(StandardCharsets.UTF_8);
  }

  private static String text(Object value) {
    return value == null ? null : new String((byte[]) value, StandardCharsets.UTF_8);
  }

  private static long number(Object value) {
    return Long.parseLong(text(value));
  }

  private <T> T call(String what, Function<RedisLink, T> command) {
    try {
      return command.apply(link());
    } catch (RedisException e) {
      throw new StoreUnavailableException("could not " + what + " in Redis: " + e.getMessage(), e);
    }
  }

  private boolean held(String what, ScriptRunner.Script script, ClaimId id, byte[]... args) {
    Long changed =
        call(
            what + " " + id,
            l -> l.scripts().run(script, ScriptOutputType.INTEGER, keys.of(id), args));
    return changed != null && changed == 1L;
  }

  @Override
  public ClaimAttempt claim(ClaimRequest r) {
    requireNonNull(r, "request must not be null");
    List<Object> reply =
        call(
            "claim " + r.id(),
            l ->
                l.scripts()
                    .run(
                        claim,
                        ScriptOutputType.MULTI,
                        keys.of(r.id()),
                        utf8(r.argsHash()),
                        utf8(r.token().value()),
                        ascii(r.lease().toMillis()),
                        ascii(r.retention().toMillis()),
                        graceMs));
    Instant now = Instant.ofEpochMilli(number(reply.get(1)));
    ClaimRecord row = row(r.id(), reply.subList(2, reply.size()));
    return "A".equals(text(reply.get(0)))
        ? new ClaimAttempt.Acquired(row, now)
        : new ClaimAttempt.Existing(row, now);
  }

  /** The row from the fields h, s, t, a, c, l, e, d, k, r, in that order. */
  private static ClaimRecord row(ClaimId id, List<Object> f) {
    ClaimState state = ClaimState.valueOf(text(f.get(1)));
    StoredResult result = null;
    if (state == ClaimState.COMPLETED && f.get(8) != null) {
      byte[] body = f.get(9) == null ? new byte[0] : (byte[]) f.get(9);
      result = new StoredResult(StoredResult.Kind.valueOf(text(f.get(8))), body);
    }
    return new ClaimRecord(
        id,
        text(f.get(0)),
        state,
        new LeaseToken(text(f.get(2))),
        (int) number(f.get(3)),
        Instant.ofEpochMilli(number(f.get(4))),
        Instant.ofEpochMilli(number(f.get(5))),
        Instant.ofEpochMilli(number(f.get(6))),
        state == ClaimState.COMPLETED && f.get(7) != null
            ? Instant.ofEpochMilli(number(f.get(7)))
            : null,
        result);
  }

  @Override
  public boolean complete(ClaimId id, LeaseToken token, StoredResult result, Duration retention) {
    requireNonNull(result, "result must not be null");
    StoreArguments.atLeastOneMs(retention, "retention");
    return held(
        "complete",
        complete,
        id,
        utf8(token.value()),
        ascii(retention.toMillis()),
        utf8(result.kind().name()),
        result.body(),
        graceMs);
  }

  @Override
  public boolean release(ClaimId id, LeaseToken token) {
    return held("release", release, id, utf8(token.value()));
  }

  @Override
  public boolean extendLease(ClaimId id, LeaseToken token, Duration lease) {
    StoreArguments.atLeastOneMs(lease, "lease");
    return held(
        "extend the lease of", extend, id, utf8(token.value()), ascii(lease.toMillis()), graceMs);
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
    byte[] leaseMs = ascii(lease.toMillis());
    List<byte[]> claimKeys = new ArrayList<>(leases.size());
    List<byte[][]> args = new ArrayList<>(leases.size());
    for (HeldLease held : leases) {
      claimKeys.add(keys.of(held.id()));
      args.add(new byte[][] {utf8(held.token().value()), leaseMs, graceMs});
    }
    Long[] replies;
    try {
      replies = renewals.run(extend, claimKeys, args, within);
    } catch (RedisException e) {
      throw new StoreUnavailableException(
          "could not extend " + leases.size() + " leases in Redis: " + e.getMessage(), e);
    }
    Set<LeaseToken> extended = new HashSet<>();
    Set<LeaseToken> undecided = new HashSet<>();
    for (int i = 0; i < leases.size(); i++) {
      Long changed = replies[i];
      if (changed == null) {
        undecided.add(leases.get(i).token());
      } else if (changed == 1L) {
        extended.add(leases.get(i).token());
      }
    }
    return new ExtendedLeases(extended, undecided);
  }

  @Override
  public boolean markUnknown(ClaimId id, LeaseToken token, Duration fence) {
    StoreArguments.atLeastOneMs(fence, "fence");
    return held(
        "mark unknown", markUnknown, id, utf8(token.value()), ascii(fence.toMillis()), graceMs);
  }

  @Override
  public Optional<ClaimRecord> find(ClaimId id) {
    requireNonNull(id, "id must not be null");
    List<Object> fields =
        call(
            "read " + id,
            l ->
                l
                    .hmget(
                        keys.of(id),
                        utf8("h"),
                        utf8("s"),
                        utf8("t"),
                        utf8("a"),
                        utf8("c"),
                        utf8("l"),
                        utf8("e"),
                        utf8("d"),
                        utf8("k"),
                        utf8("r"))
                    .stream()
                    .map(kv -> (Object) kv.getValueOrElse(null))
                    .toList());
    return fields.get(1) == null ? Optional.empty() : Optional.of(row(id, fields));
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
      KeyScanCursor<byte[]> page = call("scan for expired claims", l -> l.scan(from, args));
      for (byte[] key : page.getKeys()) {
        if (deleted >= limit) {
          return deleted;
        }
        Long gone = call("purge", l -> l.scripts().run(purge, ScriptOutputType.INTEGER, key));
        if (gone != null && gone == 1L) {
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
    List<byte[]> time = call("read the clock", RedisLink::time);
    return Instant.ofEpochSecond(number(time.get(0)), number(time.get(1)) * 1000)
        .truncatedTo(ChronoUnit.MILLIS);
  }

  /** Closes the store's connections, and the client if the store made it. */
  @Override
  public void close() {
    RedisLink l = link;
    if (l != null) {
      l.close();
    }
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
     * @param prefix what every claim key starts with; {@code mcpgate:} by default. On a cluster it
     *     must not contain <code>{</code> (it would become the hash tag and put every claim in one
     *     slot): {@link #build()} refuses it
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
     *     RedisIdempotencyStore#clusterBuilder})
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
        RedisClient own = RedisClient.create(uri);
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
      RedisClusterClient own = RedisClusterClient.create(clusterSeeds);
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
