package dev.mcpgate.jdbc;

import dev.mcpgate.core.ClaimId;
import dev.mcpgate.core.LeaseToken;
import dev.mcpgate.core.StoreUnavailableException;
import dev.mcpgate.core.spi.ClaimRequest;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.stream.Collectors;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The claims table as the store reaches it through the data source. The dialect and the table are
 * found on the first use, not when the store is built, so that a service restarting during a
 * database outage still builds its gate (and fails closed until the database is back). A failed
 * setup is tried again on the next use. The setup also takes the renewals' source, said once in the
 * log. Each operation then runs on a connection borrowed from the pool and given back, in
 * auto-commit mode (a connection handed out with auto-commit off is switched on for the call and
 * restored after).
 */
final class ClaimTable {
  private static final Logger LOG = LoggerFactory.getLogger(JdbcIdempotencyStore.class);

  private final DataSource dataSource;
  private final String table;
  private final JdbcDialect configuredDialect;
  private final boolean createSchemaIfMissing;
  private final RenewalSource renewalSource;
  private final Object setupLock = new Object();

  /** How long {@link #verify()} waits for a renewal connection. */
  private static final Duration RENEWAL_CHECK = Duration.ofSeconds(10);

  /** The tenant and tool of the row that {@link #verifyRenewals} looks for through renewals. */
  private static final String PROBE_TENANT = "mcpgate:verify";

  private static final String PROBE_TOOL = "renewal-path";

  private volatile Setup setup;

  /** What the first connection found: the dialect, and its statements. */
  record Setup(JdbcDialect dialect, SqlDialect sql, SqlFailures failures) {}

  /**
   * @param configuredDialect the dialect to use, or null to detect it
   */
  ClaimTable(
      DataSource dataSource,
      String table,
      JdbcDialect configuredDialect,
      boolean createSchemaIfMissing,
      RenewalSource renewalSource) {
    this.dataSource = dataSource;
    this.table = table;
    this.configuredDialect = configuredDialect;
    this.createSchemaIfMissing = createSchemaIfMissing;
    this.renewalSource = renewalSource;
  }

  /** The setup, made now if no use made it yet. */
  Setup get() {
    Setup s = setup;
    if (s != null) {
      return s;
    }
    synchronized (setupLock) {
      if (setup == null) {
        Setup found = connect();
        sayWhatRenewalsUse();
        setup = found;
      }
      return setup;
    }
  }

  /**
   * @return the setup if a use made it, else null
   */
  Setup madeOrNull() {
    return setup;
  }

  /** See {@link JdbcIdempotencyStore#verify()}. */
  void verify() {
    Setup s = get();
    try (Connection c = dataSource.getConnection()) {
      if (!Schema.tableExists(c, table)) {
        throw missingTable(s.dialect(), "");
      }
      SchemaCheck.Upgrade upgrade = SchemaCheck.check(c, s.dialect(), table);
      if (!upgrade.isCurrent()) {
        throw outOfDate(upgrade, "an older version of MCP Gate created it");
      }
    } catch (SQLException e) {
      throw s.failures().of("verify the table", e);
    }
    if (!renewalSource.sharesPool()) {
      verifyRenewals();
    }
  }

  /**
   * Opens one renewal connection, as a renewal would, and looks through it for a probe row the
   * store has just written: a renewal path that cannot connect (credentials the pool has and the
   * driver is not given, say), or that reaches another table of the same name (another database or
   * schema), would let every lease run out while its action runs, and a retry take the key over.
   * The probe row (its own tenant and tool, a random key, a one-minute lease and expiry) is
   * released after the look, or purged once it expires.
   */
  private void verifyRenewals() {
    String cannot =
        "lease renewals of table " + table + " use " + renewalSource.description() + ", which ";
    ClaimId probe = new ClaimId(PROBE_TENANT, PROBE_TOOL, UUID.randomUUID().toString());
    LeaseToken token = LeaseToken.random();
    run(
        "write the renewal path's probe row",
        (c, sql) ->
            sql.claim(
                c,
                new ClaimRequest(
                    probe, "probe", token, Duration.ofMinutes(1), Duration.ofMinutes(1))));
    boolean seesTable;
    boolean seesProbe;
    try (Connection c = renewalSource.open(RENEWAL_CHECK)) {
      seesTable = Schema.tableExists(c, table);
      seesProbe = seesTable && get().sql().find(c, probe) != null;
    } catch (SQLException | RuntimeException e) {
      throw new StoreUnavailableException(
          cannot
              + "could not connect ("
              + e.getMessage()
              + "): without renewals a running action's lease runs out and a retry takes its key"
              + " over. Give them the URL, user and password (or properties) the data source uses",
          e);
    } finally {
      try {
        run("release the renewal path's probe row", (c, sql) -> sql.release(c, probe, token));
      } catch (RuntimeException e) {
        LOG.warn("the renewal path's probe row {} is left to expire (in a minute)", probe, e);
      }
    }
    if (!seesProbe) {
      throw new StoreUnavailableException(
          cannot
              + (seesTable
                  ? "reach a table of that name without the row the store just wrote through its"
                      + " data source (another database, schema or search_path):"
                  : "does not see the table (another database, schema or user than the store's"
                      + " data source?):")
              + " without renewals a running action's lease runs out and a retry takes its key"
              + " over. Give them the same database, schema and user",
          null);
    }
  }

  /** An operation's statements on the borrowed connection. */
  @FunctionalInterface
  interface Work<T> {
    T run(Connection c, SqlDialect sql) throws SQLException;
  }

  <T> T run(String what, Work<T> work) {
    return run(what, null, work);
  }

  /**
   * @param what what is done, for the failure's message
   * @param id the claim it is done to, or null; named in the message only on failure (a claim's
   *     text is not built on the way of every call)
   */
  <T> T run(String what, ClaimId id, Work<T> work) {
    Setup s = get(); // before taking a connection: the setup needs one of its own
    try (Connection c = dataSource.getConnection()) {
      boolean autoCommit = c.getAutoCommit();
      if (!autoCommit) {
        c.setAutoCommit(true);
      }
      try {
        return work.run(c, s.sql());
      } finally {
        if (!autoCommit) {
          c.setAutoCommit(false);
        }
      }
    } catch (SQLException e) {
      throw s.failures().of(id == null ? what : what + " " + id, e);
    }
  }

  /**
   * @param why why the table differs, for the message
   * @return the failure that names what differs and the statements that mend it
   */
  private ClaimsTableException outOfDate(SchemaCheck.Upgrade upgrade, String why) {
    String statements =
        upgrade.statements().stream().map(st -> st + ";\n").collect(Collectors.joining());
    return new ClaimsTableException(
        table,
        ClaimsTableException.Problem.OUT_OF_DATE,
        upgrade.problems(),
        statements,
        "the claims table "
            + table
            + " is out of date ("
            + why
            + "): "
            + String.join("; ", upgrade.problems())
            + ". Bring it up to date with:\n"
            + statements);
  }

  /**
   * @param hint what follows the DDL in the message (or "")
   * @return the failure that names the missing table and the DDL that creates it
   */
  private ClaimsTableException missingTable(JdbcDialect d, String hint) {
    String ddl = d.ddl(table);
    return new ClaimsTableException(
        table,
        ClaimsTableException.Problem.MISSING,
        List.of(),
        ddl,
        "the claims table " + table + " does not exist; create it with:\n" + ddl + hint);
  }

  private void sayWhatRenewalsUse() {
    RenewalSource source = renewalSource;
    if (source.sharesPool()) {
      LOG.warn("lease renewals of table {} use {}", table, source.description());
    } else {
      LOG.info(
          "lease renewals of table {} use {}, never a connection of the DataSource the store was"
              + " given",
          table,
          source.description());
    }
  }

  private Setup connect() {
    try (Connection c = dataSource.getConnection()) {
      JdbcDialect d =
          configuredDialect != null ? configuredDialect : JdbcDialect.detect(c.getMetaData());
      refuseDirtyReads(c, d);
      if (createSchemaIfMissing) {
        boolean existed = Schema.tableExists(c, table);
        Schema.create(c, d, table);
        if (!existed) {
          LOG.info("created the claims table {} ({}; createSchemaIfMissing)", table, d);
        }
      } else if (!Schema.tableExists(c, table)) {
        throw missingTable(d, "\nor build the store with createSchemaIfMissing(true)");
      }
      SchemaCheck.Upgrade caseBlind = SchemaCheck.caseBlindness(c, d, table);
      if (!caseBlind.isCurrent()) {
        throw outOfDate(caseBlind, "it was created in an H2 database opened with IGNORECASE=TRUE");
      }
      SqlDialect sql = d.sql(table, claimProcedure(c, d));
      sql.learn(c);
      return new Setup(d, sql, new SqlFailures(d, table));
    } catch (SQLException e) {
      throw new StoreUnavailableException(
          "could not connect to set up the JDBC store for table " + table + SqlFailures.detail(e),
          e);
    }
  }

  /**
   * Refuses connections that read uncommitted rows (PostgreSQL reads none at any level): a claim
   * would replay a single-commit call's result before its commit, which may still fail and take the
   * result and the action's writes back, and tell the caller it ran.
   */
  private void refuseDirtyReads(Connection c, JdbcDialect d) throws SQLException {
    if (d != JdbcDialect.POSTGRESQL
        && c.getTransactionIsolation() == Connection.TRANSACTION_READ_UNCOMMITTED) {
      throw new StoreUnavailableException(
          "the data source of claims table "
              + table
              + " gives connections at READ UNCOMMITTED, which read rows other transactions have"
              + " not committed: a claim could replay a result whose commit then fails. Nothing"
              + " ran; give the store connections at READ COMMITTED or REPEATABLE READ (HikariCP:"
              + " transactionIsolation)",
          null);
    }
  }

  /**
   * @return true when single-commit claims and completions can call the table's procedures
   *     (MariaDB/MySQL): they exist, or were created now with the table; without them, each costs
   *     more round trips, said once in the log with the script that creates them
   */
  private boolean claimProcedure(Connection c, JdbcDialect d) throws SQLException {
    List<String> procedures = d.procedures(table);
    if (procedures.isEmpty()) {
      return false;
    }
    if (Schema.proceduresExist(c, table)) {
      return true;
    }
    if (createSchemaIfMissing) {
      Schema.createProcedures(c, procedures);
      return true;
    }
    LOG.warn(
        "the procedures {} and {} of table {} do not exist: single-commit claims and completions"
            + " cost more round trips; create them with the mariadb or mysql client:\n{}",
        TableName.claimProcedureName(table),
        TableName.completeProcedureName(table),
        table,
        d.claimProcedureDdl(table).orElseThrow());
    return false;
  }
}
