package dev.mcpgate.dynamodb;

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
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Executor;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * The DynamoDB store: one item per claim, claimed with one conditional {@code PutItem}.
 *
 * <pre>{@code
 * DynamoDbIdempotencyStore store = DynamoDbIdempotencyStore.builder(dynamoDbClient)
 *     .tableName("mcpgate_claims")          // default
 *     .leaseSafetyMargin(Duration.ofSeconds(1))
 *     .createSchemaIfMissing(true)          // for tests and first-time users
 *     .build();
 * store.verify();                           // at startup: the table's keys, the renewal path
 * ...
 * store.close();                            // stops the renewal threads; the clients are yours
 * }</pre>
 *
 * <ul>
 *   <li>Claim: one conditional {@code PutItem} where the key is absent or expired; else the item
 *       found decides, by the takeover rule, and one whose lease may be taken over (never an
 *       unknown one) is taken by one {@code UpdateItem} conditional on its token. A failed
 *       condition returns the old item ({@code ALL_OLD}): a replay costs one request, or a strongly
 *       consistent {@code GetItem} more where the server does not return it.
 *   <li>complete, release, extend and mark-unknown are conditional on the lease token; extend and
 *       mark-unknown also on {@code state = IN_PROGRESS}.
 *   <li>The gate's renewals ({@link #extendLeases}) are one conditional {@code UpdateItem} per
 *       lease, sent concurrently by the store's own threads, through a client of their own if you
 *       give one ({@link Builder#renewalClient}); {@link #close()} stops the threads. A renewal
 *       answers within the deadline the gate gives it (each request's API call timeout is what is
 *       left of it), per lease: a lease whose request failed or did not answer is undecided. It
 *       never moves a lease end back (a renewal given up on that lands late finds the lease already
 *       later, and leaves it).
 *   <li>Expiry is enforced in the condition and on read, never left to DynamoDB's lazy TTL
 *       deletion. An item's epoch-seconds {@code ttl} is its expiry plus the safety margin: deleted
 *       eventually, never while a takeover's condition still counts it alive.
 *   <li>DynamoDB has no server clock in expressions, so times come from this process's {@link
 *       InstantSource}. Servers that share a table must keep their clocks close (NTP); {@link
 *       Builder#leaseSafetyMargin} is how much skew a takeover tolerates: a lease (or a row) counts
 *       as expired only that long after its recorded end.
 *   <li>Items are limited to 400 KB: a result over {@link #MAX_RESULT_BYTES} (after optional
 *       compression) is refused with {@link ResultTooLargeException}; the gate then fences the key
 *       instead of freeing it.
 *   <li>Throttling and service errors fail closed as {@link StoreUnavailableException}, after the
 *       SDK's own retry policy (configure it on the client).
 * </ul>
 */
public final class DynamoDbIdempotencyStore implements IdempotencyStore, AutoCloseable {
  /** The largest stored result (after compression) that fits an item with room to spare. */
  public static final int MAX_RESULT_BYTES = ClaimItems.MAX_RESULT_BYTES;

  private final Requests requests;
  private final ClaimItems items;
  private final TableAdmin admin;
  private final LeaseWrites leaseWrites;
  private final ClaimWrites writes;
  private final Renewals renewals;
  private final TableCheck check;
  private final InstantSource clock;
  private final long marginMs;

  private DynamoDbIdempotencyStore(Builder b) {
    this.requests = new Requests(b.client, b.table);
    this.items =
        new ClaimItems(
            b.partitionKey,
            b.partitionPrefix,
            b.sortKey,
            b.sortKeyValue,
            b.ttlAttribute,
            b.compress,
            b.margin.toMillis());
    this.admin = new TableAdmin(requests, items);
    this.leaseWrites = new LeaseWrites(items);
    Requests renewing = b.renewalClient == null ? requests : new Requests(b.renewalClient, b.table);
    this.renewals = new Renewals(leaseWrites, renewing, b.renewalConcurrency, b.renewalExecutor);
    this.clock = b.clock;
    this.marginMs = b.margin.toMillis();
    this.writes = new ClaimWrites(requests, items, clock, marginMs);
    this.check = new TableCheck(requests, renewing, items, writes, renewals, clock);
  }

  /**
   * @param client the DynamoDB client (its retry policy applies to every request)
   * @return a builder
   */
  public static Builder builder(DynamoDbClient client) {
    return new Builder(requireNonNull(client, "client must not be null"));
  }

  /**
   * Checks now, for a startup check (building makes no request), that the table exists with the
   * builder's keys and that the renewal client reaches it: a probe item (tenant {@code
   * mcpgate:verify}, a random key, a one-minute lease) is claimed through the main client, extended
   * through the renewal client as the gate's renewals are, and released. Logs a warning when TTL is
   * not enabled on the TTL attribute. The permissions it needs are in docs/stores.md.
   *
   * @throws StoreUnavailableException if DynamoDB cannot be reached, the table is missing or has
   *     other keys, or the renewal client does not find the probe (naming its region and endpoint)
   */
  public void verify() {
    check.verify();
  }

  /** Returns the table's name. */
  public String tableName() {
    return requests.table;
  }

  /** Whether the server returned the old item on a failed condition so far (a test hook). */
  boolean returnsOldItemOnConditionFailure() {
    return writes.returnsOldItemOnConditionFailure();
  }

  String partitionValue(ClaimId id) {
    return items.partitionValue(id);
  }

  @Override
  public ClaimAttempt claim(ClaimRequest r) {
    return writes.claim(r);
  }

  @Override
  public boolean complete(ClaimId id, LeaseToken token, StoredResult result, Duration retention) {
    return writes.complete(id, token, result, retention);
  }

  @Override
  public boolean release(ClaimId id, LeaseToken token) {
    return writes.release(id, token);
  }

  /**
   * Extends the lease by one conditional {@code UpdateItem} in the everyday case (the item's expiry
   * already outlives the new lease), two when the expiry must move with it; every write is
   * conditional on the token and on {@code state = IN_PROGRESS}, so a completed or unknown item is
   * never touched ({@link LeaseWrites}).
   */
  @Override
  public boolean extendLease(ClaimId id, LeaseToken token, Duration lease) {
    requireNonNull(id, "id must not be null");
    requireNonNull(token, "token must not be null");
    StoreArguments.atLeastOneMs(lease, "lease");
    return leaseWrites.extend(requests, id, token, clock.millis() + lease.toMillis());
  }

  /**
   * Extends every lease by the rule of {@link #extendLease}, each by its own conditional {@code
   * UpdateItem} (DynamoDB has no multi-item conditional write that reports per item), sent
   * concurrently by the store's renewal threads ({@link Builder#renewalConcurrency}) over the
   * renewal client ({@link Builder#renewalClient}, the main client by default): n leases cost n
   * requests, in about n / concurrency request latencies. The call answers within {@code within},
   * however many leases: every request carries what is left of it as its API call timeout, and a
   * lease whose request failed or did not answer by then is undecided. A lease end only moves
   * forward: each write is also conditional on the lease ending before the new end, and a lease
   * found already ending at or after it is held, not lost (a renewal given up on that lands late
   * cannot move a lease back; {@link LeaseWrites#extendForward}).
   *
   * @throws StoreUnavailableException if the store was closed, or no lease was settled within
   *     {@code within}
   */
  @Override
  public ExtendedLeases extendLeases(List<HeldLease> leases, Duration lease, Duration within) {
    requireNonNull(leases, "leases must not be null");
    StoreArguments.atLeastOneMs(lease, "lease");
    StoreArguments.atLeastOneMs(within, "within");
    return renewals.extend(leases, clock.millis() + lease.toMillis(), within);
  }

  /** The write of the second half of an extension, for the tests. */
  boolean setLeaseAndRaiseExpiry(ClaimId id, LeaseToken token, long leaseEndMs) {
    return leaseWrites.setLeaseAndRaiseExpiry(requests, id, token, leaseEndMs);
  }

  @Override
  public boolean markUnknown(ClaimId id, LeaseToken token, Duration fence) {
    return writes.markUnknown(id, token, fence);
  }

  @Override
  public Optional<ClaimRecord> find(ClaimId id) {
    requireNonNull(id, "id must not be null");
    return Optional.ofNullable(requests.get(items.key(id), "read " + id))
        .map(item -> items.readOf(id, item));
  }

  /**
   * Deletes at most {@code limit} expired items, found by a Scan. DynamoDB's TTL deletion is the
   * everyday way to clean the table; this is for tables without TTL enabled and for tests. Each
   * delete is conditional on the item still being expired.
   */
  @Override
  public int purgeExpired(int limit) {
    return admin.purgeExpired(limit, clock.millis() - marginMs);
  }

  @Override
  public Instant now() {
    return Instant.ofEpochMilli(clock.millis());
  }

  /**
   * Stops the store's renewal threads; the DynamoDB clients are yours and stay open. Renewals after
   * this fail with {@link StoreUnavailableException}.
   */
  @Override
  public void close() {
    renewals.close();
  }

  /** Builds a DynamoDB store; every setter checks its argument. */
  public static final class Builder {
    private final DynamoDbClient client;
    private String table = "mcpgate_claims";
    private String partitionKey = "pk";
    private String partitionPrefix = "";
    private String sortKey;
    private String sortKeyValue;
    private String ttlAttribute = "ttl";
    private InstantSource clock = InstantSource.system();
    private Duration margin = Duration.ofSeconds(1);
    private boolean compress;
    private DynamoDbClient renewalClient;
    private int renewalConcurrency = 16;
    private Executor renewalExecutor;
    private boolean createSchemaIfMissing;

    private Builder(DynamoDbClient client) {
      this.client = client;
    }

    /**
     * @param table the table name; {@code mcpgate_claims} by default
     */
    public Builder tableName(String table) {
      this.table = nonBlank(table, "table");
      return this;
    }

    /**
     * @param attribute the partition key attribute; {@code pk} by default
     */
    public Builder partitionKey(String attribute) {
      this.partitionKey = nonBlank(attribute, "attribute");
      return this;
    }

    /**
     * Single-table layouts: a prefix for the partition key value (for example {@code "GATE#"}), so
     * that claims live beside other items. Two stores on one table need prefixes of which neither
     * begins the other: end each with {@code '#'} (see docs/stores.md).
     */
    public Builder partitionKeyPrefix(String prefix) {
      this.partitionPrefix = requireNonNull(prefix, "prefix must not be null");
      return this;
    }

    /**
     * Single-table layouts: the table's sort key attribute and the static value claims use in it
     * (for example {@code "sk"} and {@code "IDEMPOTENCY"}).
     */
    public Builder sortKey(String attribute, String value) {
      this.sortKey = nonBlank(attribute, "attribute");
      this.sortKeyValue = nonBlank(value, "value");
      return this;
    }

    /**
     * @param attribute the epoch-seconds attribute DynamoDB's TTL deletes items by; {@code ttl} by
     *     default (single-table layouts often have their own)
     */
    public Builder ttlAttribute(String attribute) {
      this.ttlAttribute = nonBlank(attribute, "attribute");
      return this;
    }

    /**
     * @param clock the clock for expiry and lease decisions; the system clock by default
     */
    public Builder clock(InstantSource clock) {
      this.clock = requireNonNull(clock, "clock must not be null");
      return this;
    }

    /**
     * @param margin how long after its recorded end a lease (or a row) still counts as alive, to
     *     tolerate clock skew between servers; 1 s by default, zero or more
     */
    public Builder leaseSafetyMargin(Duration margin) {
      if (requireNonNull(margin, "margin must not be null").isNegative()) {
        throw new IllegalArgumentException("margin must not be negative, was " + margin);
      }
      this.margin = margin;
      return this;
    }

    /**
     * @param compress true to gzip stored results over 1 KB (off by default)
     */
    public Builder compressResults(boolean compress) {
      this.compress = compress;
      return this;
    }

    /**
     * @param client the client the gate's lease renewals ({@code extendLeases}) go through, so that
     *     they never wait behind the tools' requests for the main client's connections; by default
     *     the main client. Give it its own HTTP client and connection pool. Each renewal request
     *     carries the gate's deadline for the try as its API call timeout (the client's own, when
     *     shorter, applies). Yours to close.
     */
    public Builder renewalClient(DynamoDbClient client) {
      this.renewalClient = requireNonNull(client, "client must not be null");
      return this;
    }

    /**
     * @param threads how many lease extensions a renewal sends at once (each lease is its own
     *     {@code UpdateItem}); 16 by default, 1 to 256. Keep it at or below the renewal client's
     *     maximum connections. Each renewal call has threads of its own, so two calls at once (a
     *     retry while a late one still runs) send up to twice as many.
     */
    public Builder renewalConcurrency(int threads) {
      if (threads < 1 || threads > 256) {
        throw new IllegalArgumentException("renewalConcurrency must be 1 to 256, was " + threads);
      }
      this.renewalConcurrency = threads;
      return this;
    }

    /**
     * @param executor where the lease extensions are sent from: up to {@link #renewalConcurrency}
     *     tasks per renewal call, each blocking on DynamoDB up to the call's deadline; give it
     *     threads enough and no work that must not wait. The caller's to stop; by default daemon
     *     threads of the store's own ({@code mcpgate-dynamodb-renewal-N}, ended after a minute
     *     idle), which {@link DynamoDbIdempotencyStore#close()} stops. An executor that refuses a
     *     task leaves that call's leases undecided, or fails the call when it refuses them all.
     */
    public Builder renewalExecutor(Executor executor) {
      this.renewalExecutor = requireNonNull(executor, "executor must not be null");
      return this;
    }

    /**
     * @param create true to have {@link #build()} create the table when it does not exist
     *     (on-demand billing, the configured key schema), wait until it is active, and enable TTL
     *     on the TTL attribute; false (the default) leaves the table to you. The same name as the
     *     JDBC store's option and the starter's {@code mcpgate.create-schema-if-missing}. For tests
     *     and first-time users; production tables are better made by infrastructure code
     *     (docs/stores.md).
     */
    public Builder createSchemaIfMissing(boolean create) {
      this.createSchemaIfMissing = create;
      return this;
    }

    /**
     * @return the store; makes no request, unless {@link #createSchemaIfMissing} asks it to create
     *     the table
     * @throws StoreUnavailableException if the table was to be created and could not be
     * @throws IllegalArgumentException if the key or TTL attributes collide with each other or with
     *     an attribute the store writes itself ({@code expires_at}, {@code state}, ...)
     */
    public DynamoDbIdempotencyStore build() {
      ClaimItems.checkAttributes(partitionKey, sortKey, ttlAttribute);
      DynamoDbIdempotencyStore store = new DynamoDbIdempotencyStore(this);
      if (createSchemaIfMissing) {
        store.admin.createTableIfMissing();
      }
      return store;
    }

    private static String nonBlank(String value, String name) {
      if (requireNonNull(value, () -> name + " must not be null").isBlank()) {
        throw new IllegalArgumentException(name + " must not be blank");
      }
      return value;
    }
  }
}
