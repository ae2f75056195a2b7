package dev.mcpgate.jdbc;

import static dev.mcpgate.core.internal.Checks.notNull;

import dev.mcpgate.core.ClaimId;
import dev.mcpgate.core.LeaseToken;
import dev.mcpgate.core.StoreUnavailableException;
import dev.mcpgate.core.internal.Checks;
import dev.mcpgate.core.spi.ClaimAttempt;
import dev.mcpgate.core.spi.ClaimRecord;
import dev.mcpgate.core.spi.ClaimRequest;
import dev.mcpgate.core.spi.ClaimingScope;
import dev.mcpgate.core.spi.IdempotencyStore;
import dev.mcpgate.core.spi.StoredResult;
import dev.mcpgate.core.spi.TransactionScope;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import javax.sql.DataSource;

/**
 * The JDBC store: claims live in one table with a primary key on (tenant, tool, idem_key), on
 * PostgreSQL, MariaDB, MySQL or H2.
 *
 * <pre>{@code
 * JdbcIdempotencyStore store = JdbcIdempotencyStore.builder(dataSource)
 *     .tableName("mcpgate_claims")     // the default
 *     .createSchemaIfMissing(true)     // opt-in; otherwise a missing table is an error naming the DDL
 *     .build();
 * }</pre>
 *
 * <ul>
 *   <li>The claim is atomic on every dialect (see {@link JdbcDialect}): on PostgreSQL and
 *       MariaDB/MySQL one conditional statement; on H2, which has no upsert that is atomic under
 *       concurrency, a read followed by an INSERT or an UPDATE conditional on the token just read
 *       (a compare-and-set that goes round again when another attempt won). A row is never
 *       changed on the strength of a stale read, and on PostgreSQL and MariaDB/MySQL no
 *       duplicate-key error is raised inside a transaction.</li>
 *   <li>Whether a claim may take the key is the SPI's one rule,
 *       {@link dev.mcpgate.core.spi.Takeover}, written once in SQL
 *       ({@code SqlDialect.takeoverAllowed}).</li>
 *   <li>All expiry and lease decisions use the database's clock; times are kept as epoch
 *       milliseconds.</li>
 *   <li>complete, release, extend and mark-unknown are single statements conditional on the
 *       lease token.</li>
 *   <li>{@link #transactions()} gives a {@link TransactionScope} for exactly-once effects in the
 *       same database: the action's writes and the token-checked completion commit together.</li>
 * </ul>
 *
 * <p>Each operation borrows a connection from the data source and gives it back; use a pool.
 * Statements run in auto-commit mode (a connection handed out with auto-commit off is switched on
 * for the call and restored after).
 */
public final class JdbcIdempotencyStore implements IdempotencyStore {
  private final DataSource dataSource;
  private final String table;
  private final JdbcDialect configuredDialect;
  private final boolean createSchemaIfMissing;
  private final JdbcTransactionScope transactions;
  private final Object setupLock = new Object();
  private volatile Setup setup;

  /** What the first connection found: the dialect, and its statements. */
  record Setup(JdbcDialect dialect, SqlDialect sql, SqlFailures failures) {}

  private JdbcIdempotencyStore(Builder b) {
    this.dataSource = b.dataSource;
    this.table = b.table;
    this.configuredDialect = b.dialect;
    this.createSchemaIfMissing = b.createSchemaIfMissing;
    this.transactions = new JdbcTransactionScope(JdbcTransactionScope.pooled(dataSource),
        this::setup);
  }

  /**
   * The dialect and the table, found on the first use, not when the store is built, so that a
   * service restarting during a database outage still builds its gate (and fails closed until
   * the database is back). A failed setup is tried again on the next use.
   */
  Setup setup() {
    Setup s = setup;
    if (s != null) {
      return s;
    }
    synchronized (setupLock) {
      if (setup == null) {
        setup = connect();
      }
      return setup;
    }
  }

  private Setup connect() {
    try (Connection c = dataSource.getConnection()) {
      JdbcDialect d = configuredDialect != null ? configuredDialect
          : JdbcDialect.detect(c.getMetaData());
      if (createSchemaIfMissing) {
        Schema.create(c, d, table);
      } else if (!Schema.tableExists(c, table)) {
        throw new StoreUnavailableException("the claims table " + table + " does not exist;"
            + " create it with:\n" + d.ddl(table)
            + "\nor build the store with createSchemaIfMissing(true)", null);
      }
      return new Setup(d, d.sql(table), new SqlFailures(d, table));
    } catch (SQLException e) {
      throw new StoreUnavailableException("could not connect to set up the JDBC store for table "
          + table + ": " + e.getMessage() + " (SQLState " + e.getSQLState() + ")", e);
    }
  }

  /**
   * Connects now, detects the dialect and checks the table (or creates it, when asked to): for
   * a startup check that the store is usable. The store works without it, finding out the same
   * on its first use.
   *
   * @throws StoreUnavailableException if the database cannot be reached, or the table is
   *     missing (naming it and the DDL that creates it)
   */
  public void verify() {
    Setup s = setup();
    try (Connection c = dataSource.getConnection()) {
      if (!Schema.tableExists(c, table)) {
        throw new StoreUnavailableException("the claims table " + table + " does not exist;"
            + " create it with:\n" + s.dialect().ddl(table), null);
      }
    } catch (SQLException e) {
      throw s.failures().of("verify the table", e);
    }
  }

  /**
   * @param dataSource where the claims table lives (a pool, such as HikariCP)
   * @return a builder
   */
  public static Builder builder(DataSource dataSource) {
    return new Builder(notNull(dataSource, "dataSource"));
  }

  /**
   * @return the dialect in use (connecting first, if the store has not been used yet)
   * @throws StoreUnavailableException if the database cannot be reached
   */
  public JdbcDialect dialect() {
    return setup().dialect();
  }

  /** @return the claims table */
  public String tableName() {
    return table;
  }

  @FunctionalInterface
  private interface Work<T> {
    T run(Connection c) throws SQLException;
  }

  private <T> T withConnection(String what, Work<T> work) {
    Setup s = setup();   // before taking a connection: the setup needs one of its own
    try (Connection c = dataSource.getConnection()) {
      boolean autoCommit = c.getAutoCommit();
      if (!autoCommit) {
        c.setAutoCommit(true);
      }
      try {
        return work.run(c);
      } finally {
        if (!autoCommit) {
          c.setAutoCommit(false);
        }
      }
    } catch (SQLException e) {
      throw s.failures().of(what, e);
    }
  }

  @Override
  public ClaimAttempt claim(ClaimRequest request) {
    notNull(request, "request");
    return withConnection("claim " + request.id(), c -> setup().sql().claim(c, request));
  }

  @Override
  public boolean complete(ClaimId id, LeaseToken token, StoredResult result, Duration retention) {
    notNull(result, "result");
    Checks.positiveMillis(retention, "retention");
    return withConnection("complete " + id, c -> setup().sql().complete(c, id, token, result, retention));
  }

  @Override
  public boolean release(ClaimId id, LeaseToken token) {
    return withConnection("release " + id, c -> setup().sql().release(c, id, token));
  }

  @Override
  public boolean extendLease(ClaimId id, LeaseToken token, Duration lease) {
    Checks.positiveMillis(lease, "lease");
    return withConnection("extend the lease of " + id, c -> setup().sql().extend(c, id, token, lease));
  }

  @Override
  public boolean markUnknown(ClaimId id, LeaseToken token) {
    return withConnection("mark unknown " + id, c -> setup().sql().markUnknown(c, id, token));
  }

  @Override
  public Optional<ClaimRecord> find(ClaimId id) {
    notNull(id, "id");
    return withConnection("find " + id, c -> Optional.ofNullable(setup().sql().find(c, id)));
  }

  @Override
  public int purgeExpired(int limit) {
    if (limit < 1) {
      throw new IllegalArgumentException("limit must be at least 1, was " + limit);
    }
    return withConnection("purge expired rows", c -> setup().sql().purge(c, limit));
  }

  @Override
  public Instant now() {
    return withConnection("read the clock", c -> Instant.ofEpochMilli(setup().sql().now(c)));
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
   *   try (var ps = connection.prepareStatement("UPDATE sessions SET ended_at = ? WHERE id = ?")) { ... }
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
   * source with a transaction open, in which the claim is written first, then the action's
   * writes and the completion, committed once. A duplicate waits on the key's primary key for
   * that transaction (a statement timeout of the in-flight wait, rounded up to whole seconds),
   * then replays or runs. On PostgreSQL the claim raises no error inside the transaction; keep
   * the default READ COMMITTED isolation there (and on H2). On MariaDB/MySQL the claim reads
   * with {@code LOCK IN SHARE MODE}.
   *
   * <pre>{@code
   * gate.executeSingleCommit(call, mapper, store.singleCommit(), (connection, ctx) -> {
   *   try (var ps = connection.prepareStatement("UPDATE sessions SET ended_at = ? WHERE id = ?")) { ... }
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
   * call begins a transaction on it, commits or rolls back, and leaves it open in auto-commit
   * mode. The connection must not be in a transaction of its own when the call begins, and must
   * not be used by another thread meanwhile.
   *
   * @param connection the caller's connection
   * @return the scope
   */
  public ClaimingScope<Connection> singleCommit(Connection connection) {
    return new JdbcTransactionScope(JdbcTransactionScope.callers(notNull(connection,
        "connection")), this::setup);
  }

  /** Builds a JDBC store; {@link #build()} does not connect. */
  public static final class Builder {
    private final DataSource dataSource;
    private String table = "mcpgate_claims";
    private JdbcDialect dialect;
    private boolean createSchemaIfMissing;

    private Builder(DataSource dataSource) {
      this.dataSource = dataSource;
    }

    /**
     * @param tableName a plain identifier, optionally schema-qualified; {@code mcpgate_claims} by default
     * @throws IllegalArgumentException naming the value, if it is not a plain identifier
     */
    public Builder tableName(String tableName) {
      this.table = TableName.check(tableName);
      return this;
    }

    /** @param dialect the dialect to use instead of detecting it from the connection */
    public Builder dialect(JdbcDialect dialect) {
      this.dialect = notNull(dialect, "dialect");
      return this;
    }

    /** @param create true to create the table and its index when they are missing (off by default) */
    public Builder createSchemaIfMissing(boolean create) {
      this.createSchemaIfMissing = create;
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
