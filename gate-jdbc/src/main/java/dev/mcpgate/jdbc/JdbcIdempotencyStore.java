package dev.mcpgate.jdbc;

import static java.util.Objects.requireNonNull;

import dev.mcpgate.core.ClaimId;
import dev.mcpgate.core.LeaseToken;
import dev.mcpgate.core.StoreUnavailableException;
import dev.mcpgate.core.spi.ClaimAttempt;
import dev.mcpgate.core.spi.ClaimRecord;
import dev.mcpgate.core.spi.ClaimRequest;
import dev.mcpgate.core.spi.ClaimingScope;
import dev.mcpgate.core.spi.ExtendedLeases;
import dev.mcpgate.core.spi.HeldLease;
import dev.mcpgate.core.spi.IdempotencyStore;
import dev.mcpgate.core.spi.StoreArguments;
import dev.mcpgate.core.spi.StoredResult;
import dev.mcpgate.core.spi.TransactionScope;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.function.Supplier;
import javax.sql.DataSource;

/**
 * The JDBC store: claims live in one table with a primary key on (tenant, tool, idem_key), on
 * PostgreSQL, MariaDB, MySQL or H2.
 *
 * <pre>{@code
 * JdbcIdempotencyStore store = JdbcIdempotencyStore.builder(dataSource)
 *     .tableName("mcpgate_claims")     // the default
 *     .createSchemaIfMissing(true)     // opt-in; else a missing table is an error naming the DDL
 *     .build();
 * }</pre>
 *
 * <ul>
 *   <li>The claim is atomic on every dialect (see {@link JdbcDialect} and {@code SqlDialect}): a
 *       read of the key's row (on PostgreSQL, one statement that also inserts the row when the key
 *       is free), then an INSERT, or an UPDATE conditional on the token just read (a
 *       compare-and-set that goes round again when another attempt won). A row is never changed on
 *       the strength of a stale read; a replay, a conflict and an in-flight answer write and lock
 *       nothing.
 *   <li>Whether a claim may take the key is the SPI's one rule, {@link
 *       dev.mcpgate.core.spi.Takeover}, written once in SQL ({@code SqlDialect.takeoverAllowed}).
 *   <li>All expiry and lease decisions use the database's clock; times are kept as epoch
 *       milliseconds.
 *   <li>complete, release, extend and mark-unknown are single statements conditional on the lease
 *       token.
 *   <li>{@link #transactions()} gives a {@link TransactionScope} for exactly-once effects in the
 *       same database: the action's writes and the token-checked completion commit together.
 * </ul>
 *
 * <p>Each operation borrows a connection from the data source and gives it back; use a pool.
 * Statements run in auto-commit mode (a connection handed out with auto-commit off is switched on
 * for the call and restored after).
 *
 * <p>Lease renewals ({@link #extendLeases}) are the exception: they never borrow from the pool,
 * which tools running under the gate may hold in full. They run on a connection of their own,
 * opened by the first renewal (a store that renews nothing holds nothing) and kept between
 * renewals: from the source given to {@link Builder#renewalConnections(DataSource)}, or, for a
 * HikariCP pool, from the driver with the pool's URL and credentials, or from a driver's unpooled
 * data source itself. Only a pool the store cannot see past is borrowed from, which the store says
 * at setup with the fix. Each renewal has the gate's deadline as its network timeout, and opens a
 * new connection after a failure. Close the store when the application stops.
 */
public final class JdbcIdempotencyStore implements IdempotencyStore, AutoCloseable {
  private final RenewalConnection renewals;
  private final String table;
  private final ClaimTable claims;
  private final JdbcTransactionScope transactions;

  private JdbcIdempotencyStore(Builder b) {
    this.table = b.table;
    this.renewals =
        new RenewalConnection(
            RenewalSource.choose(b.dataSource, b.renewalConnections, b.renewalDriver));
    this.claims =
        new ClaimTable(b.dataSource, table, b.dialect, b.createSchemaIfMissing, renewals.source());
    this.transactions =
        new JdbcTransactionScope(JdbcTransactionScope.pooled(b.dataSource), this::setup);
  }

  /** The dialect and the table, found on the first use (see {@link ClaimTable}). */
  ClaimTable.Setup setup() {
    return claims.get();
  }

  /**
   * Connects now, detects the dialect and checks the table (or creates it, when asked to): for a
   * startup check that the store is usable. The check compares the table with this version's: every
   * column, as wide, the primary key on (tenant, tool, idem_key) and the purge index; an older
   * version's table is out of date even where it works. The store works without this check, finding
   * a missing table on its first use (an out-of-date one, where it matters, by a failing
   * statement). When renewals have connections of their own, it looks through one of them too.
   *
   * @throws ClaimsTableException if the table is missing (naming it and the DDL that creates it) or
   *     out of date (naming what differs and the statements that bring it up to date)
   * @throws StoreUnavailableException if the database cannot be reached, or the renewals' own
   *     connection cannot log in or does not see the table
   */
  public void verify() {
    claims.verify();
  }

  /**
   * @param dataSource where the claims table lives (a pool, such as HikariCP)
   * @return a builder
   */
  public static Builder builder(DataSource dataSource) {
    return new Builder(requireNonNull(dataSource, "dataSource must not be null"));
  }

  /**
   * @return the dialect in use (connecting first, if the store has not been used yet)
   * @throws StoreUnavailableException if the database cannot be reached
   */
  public JdbcDialect dialect() {
    return setup().dialect();
  }

  /** Returns the claims table. */
  public String tableName() {
    return table;
  }

  @Override
  public ClaimAttempt claim(ClaimRequest request) {
    requireNonNull(request, "request must not be null");
    return claims.run("claim", request.id(), (c, sql) -> sql.claim(c, request));
  }

  @Override
  public boolean complete(ClaimId id, LeaseToken token, StoredResult result, Duration retention) {
    requireNonNull(result, "result must not be null");
    StoreArguments.atLeastOneMs(retention, "retention");
    return claims.run("complete", id, (c, sql) -> sql.complete(c, id, token, result, retention));
  }

  @Override
  public boolean release(ClaimId id, LeaseToken token) {
    return claims.run("release", id, (c, sql) -> sql.release(c, id, token));
  }

  @Override
  public boolean extendLease(ClaimId id, LeaseToken token, Duration lease) {
    StoreArguments.atLeastOneMs(lease, "lease");
    return claims.run("extend the lease of", id, (c, sql) -> sql.extend(c, id, token, lease));
  }

  /**
   * Extends every lease on the store's renewal connection, never one borrowed from the tools' pool:
   * one round trip per store and period however many calls are in flight ({@code docs/stores.md},
   * "Lease renewals"). {@code within} is the connection's network timeout; a row another
   * transaction holds locked leaves only its own lease undecided.
   *
   * @throws StoreUnavailableException if the connection failed or timed out: whether any lease was
   *     extended is not known
   * @throws IllegalStateException if the store was {@linkplain #close() closed}
   */
  @Override
  public ExtendedLeases extendLeases(List<HeldLease> leases, Duration lease, Duration within) {
    requireNonNull(leases, "leases must not be null");
    StoreArguments.atLeastOneMs(lease, "lease");
    StoreArguments.atLeastOneMs(within, "within");
    if (leases.isEmpty()) {
      return ExtendedLeases.of(Set.of());
    }
    long deadline = System.nanoTime() + within.toNanos();
    ClaimTable.Setup s = setup();
    int timeoutSeconds =
        (int) Math.max(1, Math.min(Integer.MAX_VALUE, (within.toMillis() + 999) / 1000));
    try {
      return renewals.use(
          within,
          s.sql().renewalSession(within),
          c -> s.sql().extendAll(c, leases, lease, timeoutSeconds, deadline));
    } catch (SQLException e) {
      throw s.failures().of("extend " + leases.size() + " leases", e);
    }
  }

  @Override
  public boolean markUnknown(ClaimId id, LeaseToken token, Duration fence) {
    StoreArguments.atLeastOneMs(fence, "fence");
    return claims.run("mark unknown", id, (c, sql) -> sql.markUnknown(c, id, token, fence));
  }

  /**
   * Closes the store's renewal connection (giving it back to its pool, when it came from one);
   * afterwards {@link #extendLeases} throws. Close the store after the gates that use it. The other
   * operations borrow pooled connections as before and still work; close the data source yourself.
   */
  @Override
  public void close() {
    try {
      renewals.close();
    } catch (SQLException e) {
      ClaimTable.Setup s = claims.madeOrNull();
      throw s != null
          ? s.failures().of("close the renewal connection", e)
          : new StoreUnavailableException(
              "could not close the renewal connection of table " + table + ": " + e.getMessage(),
              e);
    }
  }

  /** True while the store holds its renewal connection (for tests). */
  boolean holdsRenewalConnection() {
    return renewals.isOpen();
  }

  /** Closes the kept renewal connection as a lost one would be; the next renewal opens one. */
  void dropRenewalConnectionForTest() {
    renewals.dropIdle();
  }

  @Override
  public Optional<ClaimRecord> find(ClaimId id) {
    requireNonNull(id, "id must not be null");
    return claims.run("find", id, (c, sql) -> Optional.ofNullable(sql.find(c, id)));
  }

  @Override
  public int purgeExpired(int limit) {
    if (limit < 1) {
      throw new IllegalArgumentException("limit must be at least 1, was " + limit);
    }
    return claims.run("purge expired rows", (c, sql) -> sql.purge(c, limit));
  }

  @Override
  public Instant now() {
    return claims.run("read the clock", (c, sql) -> Instant.ofEpochMilli(sql.now(c)));
  }

  /**
   * A unit of work for {@link dev.mcpgate.core.IdempotencyGate#execute(dev.mcpgate.core.ToolCall,
   * dev.mcpgate.core.ResultMapper, TransactionScope, dev.mcpgate.core.ScopedAction)}: a connection
   * from this store's data source with a transaction open, in which the action writes and the
   * completion is stored (token-checked). If the lease was taken over meanwhile, the whole
   * transaction rolls back.
   *
   * <pre>{@code
   * gate.execute(call, mapper, store.transactions(), (connection, ctx) -> {
   *   String sql = "UPDATE sessions SET ended_at = ? WHERE id = ?";
   *   try (var ps = connection.prepareStatement(sql)) { ... }
   *   return result;
   * });
   * }</pre>
   *
   * @return the scope
   */
  public TransactionScope<Connection> transactions() {
    return transactions;
  }

  /**
   * The unit of work of single-commit mode, for {@link
   * dev.mcpgate.core.IdempotencyGate#executeSingleCommit}: a connection from this store's data
   * source with a transaction open, in which the claim is written first, then the action's writes
   * and the completion, committed once. A duplicate meets the key's uncommitted claim: with a zero
   * wait it does not wait (the dialect's least lock timeout) and the claim throws {@link
   * dev.mcpgate.core.ClaimBusyException}; else it waits at most that long, in whole seconds. A unit
   * of work that ends without its commit is rolled back. Keep READ COMMITTED on PostgreSQL and H2.
   *
   * <pre>{@code
   * gate.executeSingleCommit(call, mapper, store.singleCommit(), (connection, ctx) -> {
   *   String sql = "UPDATE sessions SET ended_at = ? WHERE id = ?";
   *   try (var ps = connection.prepareStatement(sql)) { ... }
   *   return result;
   * });
   * }</pre>
   *
   * @return the scope
   */
  public ClaimingScope<Connection> singleCommit() {
    return transactions;
  }

  /**
   * Like {@link #singleCommit()}, on a connection the caller owns (to this store's database): each
   * call begins a transaction on it, commits or rolls back, and leaves it open in auto-commit mode.
   * It must be in auto-commit mode when a call begins (else {@code begin()} throws {@link
   * IllegalStateException}: nothing runs, the connection is untouched), by one thread at a time.
   *
   * @param connection the caller's connection
   * @return the scope
   */
  public ClaimingScope<Connection> singleCommit(Connection connection) {
    return new JdbcTransactionScope(
        JdbcTransactionScope.callers(requireNonNull(connection, "connection must not be null")),
        this::setup);
  }

  /** Builds a JDBC store; {@link #build()} does not connect. */
  public static final class Builder {
    private final DataSource dataSource;
    private String table = "mcpgate_claims";
    private JdbcDialect dialect;
    private boolean createSchemaIfMissing;
    private DataSource renewalConnections;
    private RenewalSource renewalDriver;

    private Builder(DataSource dataSource) {
      this.dataSource = dataSource;
    }

    /**
     * @param tableName a plain identifier, optionally schema-qualified; {@code mcpgate_claims} by
     *     default
     * @throws IllegalArgumentException naming the value, if it is not a plain identifier
     */
    public Builder tableName(String tableName) {
      this.table = TableName.check(tableName);
      return this;
    }

    /** Sets the dialect to use, instead of detecting it from the connection. */
    public Builder dialect(JdbcDialect dialect) {
      this.dialect = requireNonNull(dialect, "dialect must not be null");
      return this;
    }

    /**
     * @param create true to create the table and its index when they are missing (off by default)
     */
    public Builder createSchemaIfMissing(boolean create) {
      this.createSchemaIfMissing = create;
      return this;
    }

    /**
     * Where the store opens its renewal connection, instead of the one it finds for itself (see the
     * class comment): a source that does not go through the tools' pool (an unpooled {@code
     * DataSource} of the driver, such as {@code PGSimpleDataSource} or {@code MariaDbDataSource},
     * to the same database), with its own connect and socket timeouts shorter than a quarter of the
     * lease. The store opens a connection from it at the first renewal, keeps it between renewals,
     * and opens a new one after a failure. Needed only for a pool other than HikariCP that wraps no
     * unpooled data source; the store says at setup when it is.
     *
     * @param source a data source on the same database as the claims table
     * @return this builder
     */
    public Builder renewalConnections(DataSource source) {
      this.renewalConnections = requireNonNull(source, "renewalConnections must not be null");
      return this;
    }

    /**
     * Opens the renewal connection straight from the JDBC driver, as the store does by itself for a
     * HikariCP pool: for a pool that hides its URL (Agroal, say). Each connection is opened with
     * the renewal's deadline as the driver's connect and read timeouts (PostgreSQL, MariaDB,
     * MySQL). Takes precedence over {@link #renewalConnections(DataSource)}.
     *
     * @param jdbcUrl the URL of the same database as the claims table
     * @param properties the driver's properties, such as {@code user} and {@code password} (copied)
     * @return this builder
     */
    public Builder renewalConnectionsFromDriver(String jdbcUrl, Properties properties) {
      Properties copy = new Properties();
      copy.putAll(requireNonNull(properties, "properties must not be null"));
      return renewalConnectionsFromDriver(jdbcUrl, () -> copy, null);
    }

    /**
     * As above, with the properties asked for again for each new connection (credentials that
     * rotate; it runs within a renewal try's deadline: answer from a cache), and {@code initSql}
     * (the pool's own new-connection SQL, such as a {@code search_path}) run on each, or null.
     *
     * @return this builder
     */
    public Builder renewalConnectionsFromDriver(
        String jdbcUrl, Supplier<Properties> properties, String initSql) {
      requireNonNull(properties, "properties must not be null");
      ClassLoader loader = Thread.currentThread().getContextClassLoader();
      this.renewalDriver =
          RenewalSource.fromDriver(
              requireNonNull(jdbcUrl, "jdbcUrl must not be null"),
              properties,
              initSql,
              loader == null ? Builder.class.getClassLoader() : loader);
      return this;
    }

    /**
     * Builds the store without connecting: the dialect (unless given) and the table are found on
     * the first use (or by {@link JdbcIdempotencyStore#verify()}).
     *
     * @return the store
     */
    public JdbcIdempotencyStore build() {
      return new JdbcIdempotencyStore(this);
    }
  }
}
