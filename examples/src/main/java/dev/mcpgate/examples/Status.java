package dev.mcpgate.examples;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.mcpgate.core.ClaimId;
import dev.mcpgate.core.IdempotencyGate;
import dev.mcpgate.core.KeyDigest;
import dev.mcpgate.core.Reconciler;
import dev.mcpgate.core.audit.AuditDecision;
import dev.mcpgate.core.audit.AuditRecord;
import dev.mcpgate.core.spi.ClaimRecord;
import dev.mcpgate.core.spi.StoredResult;
import dev.mcpgate.jdbc.JdbcAuditLog;
import dev.mcpgate.jdbc.JdbcIdempotencyStore;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.io.IOException;
import java.io.PrintStream;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import javax.sql.DataSource;

/**
 * The operator's question, "did we refund ord_9f2 twice?", answered from the claims table and the
 * audit trail in plain words: the claim row as it stands, then what each arrival of the call was
 * told. With a search text, the keys whose recorded arguments contain it.
 */
final class Status {
  private Status() {}

  static int run(
      String jdbcUrl,
      String tenant,
      String tool,
      String key,
      String search,
      String claimsTable,
      String auditTable,
      PrintStream out)
      throws Exception {
    try (HikariDataSource ds = open(jdbcUrl)) {
      JdbcAuditLog log = JdbcAuditLog.of(ds, auditTable);
      if (search != null) {
        int shown = 50;
        List<AuditRecord> found = log.search(tenant, search, shown + 1); // one more: are there?
        out.println(
            (found.size() > shown
                    ? "the newest " + shown + " of more than " + shown + " records"
                    : found.size() + " record(s)")
                + " of tenant "
                + tenant
                + " whose arguments contain \""
                + search
                + "\" (newest first"
                + (found.size() > shown ? "; narrow the search to see older ones" : "")
                + "):");
        for (AuditRecord r : found.subList(0, Math.min(shown, found.size()))) {
          out.println(
              "  "
                  + r.at()
                  + "  "
                  + r.tool()
                  + (r.key() == null ? "  no key" : "  key " + r.key())
                  + "  "
                  + r.decision()
                  + "  "
                  + r.arguments());
        }
        return 0;
      }
      JdbcIdempotencyStore store = JdbcIdempotencyStore.builder(ds).tableName(claimsTable).build();
      ClaimId id = new ClaimId(tenant, tool, key);
      Optional<ClaimRecord> row = store.find(id);
      if (row.isEmpty()) {
        // a natural key is stored as its digest: find it by the raw key all the same
        ClaimId digested = KeyDigest.sha256().digested(id);
        row = store.find(digested);
        if (row.isPresent()) {
          key = digested.key();
        }
      }
      out.println(tool + " with key \"" + key + "\" for tenant " + tenant + ":");
      out.println(
          "  claim: "
              + row.map(Status::describe)
                  .orElse("none (never claimed, released," + " or expired and purged)"));
      List<AuditRecord> history;
      try {
        history = log.history(tenant, tool, key);
      } catch (java.sql.SQLException e) {
        out.println(
            "  history: none (the audit table "
                + auditTable
                + " could not be read: "
                + e.getMessage().lines().findFirst().orElse("")
                + ")");
        return 0;
      }
      out.println("  history: " + summary(history));
      for (AuditRecord r : history) {
        out.println(
            "    "
                + r.at()
                + "  "
                + r.decision()
                + (r.attempt() > 0 ? " (attempt " + r.attempt() + ")" : "")
                + (r.reason() != null ? ": " + r.reason() : "")
                + "  args "
                + r.argsHash()
                + "  "
                + r.durationMicros() / 1000
                + " ms");
      }
      return 0;
    }
  }

  /** The database could not be opened: nothing was read or changed (exit code 3). */
  static final class CannotOpen extends RuntimeException {
    CannotOpen(String message, Throwable cause) {
      super(message, cause);
    }
  }

  /**
   * @return a small pool on the database
   * @throws CannotOpen when it cannot be opened, saying why (an embedded H2 file is held by the
   *     process that opened it, a running server for one)
   */
  private static HikariDataSource open(String jdbcUrl) {
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(jdbcUrl);
    config.setMaximumPoolSize(2);
    try {
      return new HikariDataSource(config);
    } catch (RuntimeException e) {
      Throwable cause = e;
      while (cause.getCause() != null && !(cause instanceof java.sql.SQLException)) {
        cause = cause.getCause();
      }
      String why = String.valueOf(cause.getMessage());
      throw new CannotOpen(
          "could not open the database "
              + jdbcUrl
              + ": "
              + why
              + (why.contains("already in use")
                  ? "\nAn H2 file is held by the process that opened it: stop the server first,"
                      + " or start the server and status both with ;AUTO_SERVER=TRUE at the end"
                      + " of the URL."
                  : "")
              + "\nNothing was read or changed.",
          e);
    }
  }

  private static String describe(ClaimRecord r) {
    boolean settlements = r.token().isSettlement(); // no action runs under such a token
    return switch (r.state()) {
      case COMPLETED ->
          "completed by attempt "
              + r.attempt()
              + " at "
              + r.completedAt()
              + (settlements ? " (settled, after an operator's takeover)" : "")
              + (r.result().kind() == StoredResult.Kind.NOT_STORED
                  ? ", result too large to keep"
                  : ", result stored")
              + "; kept until "
              + r.expiresAt();
      case IN_PROGRESS ->
          settlements
              ? unknown(r, r.leaseExpiresAt())
              : "in progress, attempt " + r.attempt() + ", lease until " + r.leaseExpiresAt();
      case UNKNOWN -> unknown(r, r.expiresAt());
    };
  }

  private static String unknown(ClaimRecord r, Instant fencedUntil) {
    return "outcome unknown ("
        + (r.token().isSettlement()
            ? "attempt "
                + r.attempt()
                + " is an operator's takeover of an earlier attempt, stopped before its verdict"
            : "attempt " + r.attempt())
        + "), fenced until "
        + fencedUntil
        + " unless settled (status resolve)";
  }

  /**
   * Settles a key whose outcome is unknown, for an operator who found out what happened (in the
   * payment provider's dashboard, say): with a result, the effect happened and that result is
   * stored and replayed to retries; without one, it did not, and the fence is lifted so that a
   * retry runs the call.
   *
   * @param happenedJson the call's result as MCP JSON (a CallToolResult, e.g. {@code
   *     {"content":[{"type":"text","text":"Refunded"}]}}), or null for "not happened"
   * @return 0 when settled; 1 when there was no unknown outcome to settle as read (see the
   *     message); 2 for a result that is not a CallToolResult
   * @throws CannotOpen when the database cannot be opened (nothing changed; exit code 3)
   */
  static int resolve(
      String jdbcUrl,
      String tenant,
      String tool,
      String key,
      String happenedJson,
      String claimsTable,
      PrintStream out,
      PrintStream err)
      throws Exception {
    Reconciler.Verdict verdict;
    if (happenedJson == null) {
      verdict = Reconciler.Verdict.notHappened();
    } else {
      try {
        CallToolResult result = Transports.JSON.readValue(happenedJson, CallToolResult.class);
        verdict = Reconciler.Verdict.happened(Transports.JSON.writeValueAsBytes(result));
      } catch (IOException | RuntimeException e) {
        err.println(
            "--happened needs the call's result as MCP JSON, for example"
                + " '{\"content\":[{\"type\":\"text\",\"text\":\"Refunded 500 cents\"}]}',"
                + " got '"
                + happenedJson
                + "': "
                + e.getMessage());
        return 2;
      }
    }
    ClaimId id = new ClaimId(tenant, tool, key);
    try (HikariDataSource ds = open(jdbcUrl);
        IdempotencyGate gate =
            IdempotencyGate.builder(JdbcIdempotencyStore.builder(ds).tableName(claimsTable).build())
                .build()) {
      if (happenedJson != null && storesEncodedResults(ds, claimsTable, tenant, tool)) {
        err.println(
            "the results stored in "
                + claimsTable
                + " are not plain MCP JSON: the server's gate encodes them (a ResultCodec, such as"
                + " AesGcmResultCodec), and this command would store yours unencoded, a result the"
                + " server could not read. Nothing was written. Settle it with the server's own"
                + " gate.resolveUnknown (docs/operations.md); --not-happened works here.");
        return 2;
      }
      if (!gate.resolveUnknown(id, verdict)) {
        out.println(
            tool
                + " with key \""
                + key
                + "\" for tenant "
                + tenant
                + " has no unknown outcome to settle (none, completed, or in progress under a"
                + " live lease, whose attempt may be running; or it changed while it was read,"
                + " an attempt releasing, claiming or fencing it: nothing was written, and the"
                + " claim below is as that attempt left it). claim: "
                + gate.find(id).map(Status::describe).orElse("none"));
        return 1;
      }
      out.println(
          tool
              + " with key \""
              + key
              + "\" for tenant "
              + tenant
              + " settled: "
              + (happenedJson != null
                  ? "the effect happened; retries now get the result you gave, marked as a replay"
                  : "the effect did not happen; the fence is lifted, and a retry runs the call"));
      out.println(
          "  claim: "
              + gate.find(id).map(Status::describe).orElse("none (a retry runs" + " the call)"));
      return 0;
    }
  }

  /**
   * @return true when one of the last stored results of {@code tool} for {@code tenant} (or, when
   *     it has none, of the table) is not MCP JSON, which begins with {@code {}: the server encodes
   *     its results with a codec this command does not have (or began to: older rows stay plain).
   *     A table with no stored result tells nothing (false).
   */
  static boolean storesEncodedResults(DataSource ds, String table, String tenant, String tool)
      throws SQLException {
    String stored = "SELECT result FROM " + table + " WHERE result_kind = 'VALUE'";
    String last = " ORDER BY created_at_ms DESC LIMIT 20";
    try (Connection c = ds.getConnection();
        PreparedStatement own = c.prepareStatement(stored + " AND tenant = ? AND tool = ?" + last);
        PreparedStatement any = c.prepareStatement(stored + last)) {
      own.setString(1, tenant);
      own.setString(2, tool);
      for (PreparedStatement ps : List.of(own, any)) {
        boolean found = false;
        try (ResultSet rs = ps.executeQuery()) {
          while (rs.next()) {
            found = true;
            byte[] result = rs.getBytes(1);
            if (result != null && (result.length == 0 || result[0] != '{')) {
              return true;
            }
          }
        }
        if (found) {
          return false;
        }
      }
      return false;
    }
  }

  /**
   * "ran once, last by attempt 1; replayed 3 times; conflict 1 time": a record's call ran the
   * action when it is not a replay and names an attempt (see docs/operations.md, the audit trail).
   */
  static String summary(List<AuditRecord> history) {
    if (history.isEmpty()) {
      return "no audit records";
    }
    Map<AuditDecision, Integer> counts = new TreeMap<>();
    history.forEach(r -> counts.merge(r.decision(), 1, Integer::sum));
    // a record's call ran the action when it is not a replay and names an attempt: outcomes
    // unknown, results not kept or refused by the store included
    List<AuditRecord> runs =
        history.stream()
            .filter(r -> r.decision() != AuditDecision.REPLAYED && r.attempt() > 0)
            .toList();
    // an attempt taken over left no record when it was killed: it ran, or may have
    long unrecorded =
        runs.stream()
            .filter(r -> r.decision() == AuditDecision.TAKEOVER)
            .mapToInt(AuditRecord::attempt)
            .max()
            .stream()
            .flatMap(last -> java.util.stream.IntStream.range(1, last))
            .filter(a -> runs.stream().noneMatch(r -> r.attempt() == a))
            .count();
    int ran = runs.size();
    StringBuilder s =
        new StringBuilder(
            unrecorded > 0
                ? "ran "
                    + ran
                    + " to "
                    + (ran + unrecorded)
                    + " times ("
                    + unrecorded
                    + " attempt(s) taken over left no record, and may have run)"
                : ran == 1 ? "ran once" : "ran " + ran + " times");
    history.stream()
        .filter(
            r -> r.decision() == AuditDecision.EXECUTED || r.decision() == AuditDecision.TAKEOVER)
        .reduce((a, b) -> b)
        .ifPresent(r -> s.append(", last by attempt ").append(r.attempt()));
    int replayed = counts.getOrDefault(AuditDecision.REPLAYED, 0);
    if (replayed > 0) {
      s.append("; replayed ").append(replayed).append(replayed == 1 ? " time" : " times");
    }
    counts.forEach(
        (d, n) -> {
          if (d != AuditDecision.EXECUTED
              && d != AuditDecision.TAKEOVER
              && d != AuditDecision.REPLAYED) {
            s.append("; ")
                .append(d.name().toLowerCase(Locale.ROOT))
                .append(" ")
                .append(n)
                .append(n == 1 ? " time" : " times");
          }
        });
    return s.toString();
  }
}
