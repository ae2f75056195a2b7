package dev.mcpgate.benchmarks.throughput;

import dev.mcpgate.cache.ReplayCache;
import dev.mcpgate.core.GateResult;
import dev.mcpgate.core.IdempotencyGate;
import dev.mcpgate.core.ResultMapper;
import dev.mcpgate.core.ToolCall;
import dev.mcpgate.core.spi.IdempotencyStore;
import dev.mcpgate.jdbc.JdbcDialect;
import dev.mcpgate.jdbc.JdbcIdempotencyStore;
import java.util.Map;
import javax.sql.DataSource;

/** MCP Gate's JDBC store, in each of its three ways of running an action. */
final class GateContender implements Contender {
  private static final String RESULT = "x".repeat(64);

  /** How the gated action runs. */
  enum Mode {
    /** {@code gate.execute}: claim, a no-op action, completion; two commits. */
    PLAIN("MCP Gate, plain"),
    /**
     * The store's transaction scope: claim; then the business INSERT and the completion, one
     * commit.
     */
    TRANSACTIONAL("MCP Gate, transactional + INSERT"),
    /** Single-commit mode: the claim, the business INSERT and the completion in one commit. */
    SINGLE_COMMIT("MCP Gate, single-commit + INSERT"),
    /**
     * Single-commit mode around a read-modify-write transaction ({@link Sql#transfer}): what the
     * gate adds to a tool's real transaction.
     */
    SINGLE_COMMIT_TRANSFER("MCP Gate, single-commit + read-modify-write"),
    /** Plain, with the replay near-cache (gate-cache) in front of the store. */
    PLAIN_CACHED("MCP Gate, plain + replay cache"),
    /**
     * Plain, on a table without the MariaDB/MySQL procedures: the claim's SELECT and INSERT sent
     * one by one (on PostgreSQL, the same as plain).
     */
    PLAIN_NO_PROCEDURES("MCP Gate, plain, no procedures");

    final String label;

    Mode(String label) {
      this.label = label;
    }
  }

  private final Mode mode;
  private JdbcIdempotencyStore store;
  private IdempotencyGate gate;

  GateContender(Mode mode) {
    this.mode = mode;
  }

  @Override
  public String name() {
    return mode.label;
  }

  @Override
  public void reset(DataSource dataSource, Database database) throws Exception {
    // the last round's gate and store give back their renewal thread and connection: a store
    // left open keeps one connection of the pool for its renewals
    if (gate != null) {
      gate.close();
      store.close();
    }
    Sql.execute(dataSource, "DROP TABLE IF EXISTS bench_claims");
    Sql.createBusinessTable(dataSource);
    if (mode == Mode.SINGLE_COMMIT_TRANSFER) {
      Sql.createAccounts(dataSource);
    }
    if (mode == Mode.PLAIN_NO_PROCEDURES) {
      // the table alone, as an older version created it: the store falls back to two statements
      JdbcDialect dialect =
          database == Database.POSTGRESQL ? JdbcDialect.POSTGRESQL : JdbcDialect.MARIADB;
      for (String statement : dialect.ddl("bench_claims").split(";")) {
        if (statement.lines().anyMatch(l -> !l.isBlank() && !l.strip().startsWith("--"))) {
          Sql.execute(dataSource, statement);
        }
      }
      if (database == Database.MARIADB) {
        Sql.execute(
            dataSource,
            "DROP PROCEDURE IF EXISTS bench_claims_claim_v1",
            "DROP PROCEDURE IF EXISTS bench_claims_complete_v1");
      }
    }
    store =
        JdbcIdempotencyStore.builder(dataSource)
            .tableName("bench_claims")
            .createSchemaIfMissing(mode != Mode.PLAIN_NO_PROCEDURES)
            .build();
    IdempotencyStore gated = mode == Mode.PLAIN_CACHED ? ReplayCache.wrap(store, 10_000) : store;
    gate = IdempotencyGate.builder(gated).build();
  }

  private GateResult<String> call(String key) {
    ToolCall call = ToolCall.of("acme", "stop_session", key, Map.of("session_id", key));
    return switch (mode) {
      case PLAIN, PLAIN_CACHED, PLAIN_NO_PROCEDURES ->
          gate.execute(call, ResultMapper.utf8(), ctx -> RESULT);
      case SINGLE_COMMIT_TRANSFER ->
          gate.executeSingleCommit(
              call,
              ResultMapper.utf8(),
              store.singleCommit(),
              (c, ctx) -> {
                Sql.transfer(c, key);
                return RESULT;
              });
      case TRANSACTIONAL ->
          gate.execute(
              call,
              ResultMapper.utf8(),
              store.transactions(),
              (c, ctx) -> {
                Sql.insertBusinessRow(c, key);
                return RESULT;
              });
      case SINGLE_COMMIT ->
          gate.executeSingleCommit(
              call,
              ResultMapper.utf8(),
              store.singleCommit(),
              (c, ctx) -> {
                Sql.insertBusinessRow(c, key);
                return RESULT;
              });
    };
  }

  @Override
  public void fresh(String key) {
    Sql.expect(call(key) instanceof GateResult.Executed, "not executed", key);
  }

  @Override
  public void replay(String key) {
    Sql.expect(call(key) instanceof GateResult.Replayed, "not replayed", key);
  }
}
