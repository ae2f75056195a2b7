package dev.mcpgate.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.mcpgate.core.ClaimId;
import dev.mcpgate.core.GatePolicy;
import dev.mcpgate.core.GateResult;
import dev.mcpgate.core.IdempotencyGate;
import dev.mcpgate.core.LeaseToken;
import dev.mcpgate.core.ResultMapper;
import dev.mcpgate.core.ToolCall;
import dev.mcpgate.core.spi.ClaimRequest;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;

/** What the MariaDB purge tests share: pools, rows that expire, rows held locked. */
final class MariaDbPurgeFixtures {
  private MariaDbPurgeFixtures() {}

  /**
   * A pool on the test MariaDB whose sessions wait {@code lockWaitSeconds} for a row lock: bounded,
   * so that a statement that waits on the purge fails in that time instead of the server's 50 s.
   *
   * @param urlOptions more of the driver's URL options ({@code &name=value...}), or ""
   */
  static HikariDataSource pool(int lockWaitSeconds, int size, String urlOptions) {
    TestDatabases.Target db = TestDatabases.mariadb();
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(
        db.url()
            + (db.url().contains("?") ? "&" : "?")
            + "sessionVariables=innodb_lock_wait_timeout="
            + lockWaitSeconds
            + urlOptions);
    if (db.user() != null) {
      config.setUsername(db.user());
      config.setPassword(db.password());
    }
    config.setMaximumPoolSize(size);
    return new HikariDataSource(config);
  }

  /** Claims that expire 100 ms after they are made, for the purge to find. */
  static final GatePolicy SHORT_LIVED =
      GatePolicy.builder().lease(Duration.ofMillis(100)).retention(Duration.ofMillis(100)).build();

  /** Leases of {@code lease}, results kept an hour, and a key in flight refused at once. */
  static GatePolicy zeroWait(Duration lease) {
    return GatePolicy.builder()
        .lease(lease)
        .retention(Duration.ofHours(1))
        .inFlightWait(Duration.ZERO)
        .build();
  }

  /**
   * Runs each call once through {@code gate} (its result "old"), a few milliseconds apart: distinct
   * created_at_ms, so the purge reads them in this order. A call whose 100 ms lease ran out before
   * its action started (a busy machine) ran nothing and is retried with its key, as the gate says
   * is safe, up to 20 times.
   */
  static void runEach(IdempotencyGate gate, ToolCall... calls) throws Exception {
    for (ToolCall call : calls) {
      GateResult<String> result = gate.execute(call, ResultMapper.utf8(), ctx -> "old");
      for (int retry = 0; retry < 20 && result instanceof GateResult.Failed<String> f; retry++) {
        assertThat(f.retrySafe()).as("the setup call of %s: %s", call.id(), f).isTrue();
        result = gate.execute(call, ResultMapper.utf8(), ctx -> "old");
      }
      assertThat(result)
          .as("the setup call of %s", call.id())
          .isInstanceOf(GateResult.Executed.class);
      Thread.sleep(3);
    }
  }

  static JdbcIdempotencyStore store(DataSource ds, String table) {
    return JdbcIdempotencyStore.builder(ds).tableName(table).createSchemaIfMissing(true).build();
  }

  /** A claim that expires in 100 ms, a few milliseconds after the one before it. */
  static void expiring(JdbcIdempotencyStore store, ClaimId id) throws Exception {
    store.claim(
        new ClaimRequest(
            id, "v1:a", LeaseToken.random(), Duration.ofMillis(100), Duration.ofMillis(100)));
    Thread.sleep(3); // distinct created_at_ms: the purge's order is the order of creation
  }

  /** Purges until no expired row is left: rows other runs left would count in a purge's answer. */
  static void purgeAll(JdbcIdempotencyStore store) {
    while (store.purgeExpired(500) > 0) {
      // again
    }
  }

  /**
   * Locks the row as a single-commit takeover of it in flight would: an X lock until the returned
   * connection's transaction ends.
   */
  static Connection hold(DataSource ds, String table, ClaimId id) throws Exception {
    Connection holder = ds.getConnection();
    holder.setAutoCommit(false);
    try (PreparedStatement lock =
        holder.prepareStatement(
            "SELECT * FROM "
                + table
                + " WHERE tenant = ? AND tool = ? AND idem_key = ? FOR UPDATE")) {
      ClaimRows.bindKey(lock, 1, id);
      lock.executeQuery().close();
    }
    return holder;
  }

  /**
   * A trigger on {@code table} that sleeps on the DELETE of rows whose key is one of the pairs'
   * (key, seconds): a stand-in for a row whose DELETE is slow (a large before-image to log, a
   * starved server thread).
   */
  static void slowOn(DataSource ds, String table, Object... keysAndSeconds) throws Exception {
    StringBuilder body = new StringBuilder();
    for (int i = 0; i < keysAndSeconds.length; i += 2) {
      body.append(i == 0 ? "IF " : " ELSEIF ")
          .append("OLD.idem_key = '")
          .append(keysAndSeconds[i])
          .append("' THEN DO SLEEP(")
          .append(keysAndSeconds[i + 1])
          .append(");");
    }
    body.append(" END IF;");
    try (Connection c = ds.getConnection()) {
      SqlDialect.run(c, "DROP TRIGGER IF EXISTS " + table + "_slow");
      SqlDialect.run(
          c,
          "CREATE TRIGGER "
              + table
              + "_slow BEFORE DELETE ON "
              + table
              + " FOR EACH ROW BEGIN "
              + body
              + " END");
    }
  }

  /**
   * Waits until the {@link #slowOn} trigger has slept in one statement for at least {@code
   * atLeast}, longer than MariaDB lets a purge statement of many rows run: the purge is then in a
   * DELETE of one row and has committed the rows before it, or in a group statement its limit did
   * not stop. A fixed sleep instead tells neither on a busy machine. (The server shows the
   * trigger's own statement, not the table's.)
   */
  static void awaitSleepingFor(DataSource ds, Duration atLeast) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    try (Connection c = ds.getConnection();
        PreparedStatement sleeping =
            c.prepareStatement(
                "SELECT COUNT(*) FROM information_schema.PROCESSLIST"
                    + " WHERE STATE = 'User sleep' AND TIME_MS >= ? AND INFO LIKE 'DO SLEEP(%'")) {
      sleeping.setLong(1, atLeast.toMillis());
      while (true) {
        try (ResultSet rs = sleeping.executeQuery()) {
          rs.next();
          if (rs.getInt(1) > 0) {
            return;
          }
        }
        if (System.nanoTime() > deadline) {
          throw new AssertionError(
              "no DELETE slept " + atLeast.toMillis() + " ms in the trigger within 30 s");
        }
        Thread.sleep(10);
      }
    }
  }

  /** Drops the trigger {@link #slowOn} made. */
  static void dropSlow(DataSource ds, String table) throws Exception {
    try (Connection c = ds.getConnection()) {
      SqlDialect.run(c, "DROP TRIGGER IF EXISTS " + table + "_slow");
    }
  }
}
