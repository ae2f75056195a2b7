package dev.mcpgate.examples;

import static java.util.Map.entry;

import dev.mcpgate.mcp.KeySource;
import dev.mcpgate.mcp.ToolPolicy;
import io.modelcontextprotocol.server.McpServerFeatures.SyncToolSpecification;
import io.modelcontextprotocol.server.McpSyncServerExchange;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Focus sessions, the case where a retry used to stop "the only running session" (now another one),
 * and where two devices stop one session with two different intents.
 */
final class SessionTools {
  private final ExampleServer server;

  SessionTools(ExampleServer server) {
    this.server = server;
  }

  /**
   * start_session(session_id, started_at): create-if-absent by a client-minted id; declared safe.
   */
  SyncToolSpecification startSession() {
    McpSchema.Tool tool =
        McpSchema.Tool.builder(
                "start_session",
                Schemas.object(
                    List.of("session_id", "started_at"),
                    entry(
                        "session_id",
                        Schemas.string("a new id you mint for the session, e.g. s-3f9a")),
                    entry(
                        "started_at",
                        Schemas.string("when it started, ISO-8601, e.g. 2025-06-01T13:00:00Z"))))
            .description(
                "Start a focus session under an id you choose. Safe to retry: the same id"
                    + " starts it once.")
            .annotations(
                new McpSchema.ToolAnnotations("Start a session", false, false, true, false, null))
            .build();
    return new SyncToolSpecification(
        tool,
        (exchange, request) -> {
          server.executed("start_session");
          String tenant = server.tenant(exchange);
          String id = (String) request.arguments().get("session_id");
          String startedAt;
          try {
            startedAt = Instant.parse((String) request.arguments().get("started_at")).toString();
          } catch (DateTimeParseException e) {
            return Results.error(
                "started_at must be an ISO-8601 instant such as 2025-06-01T13:00:00Z");
          }
          try (Connection c = server.dataSource.getConnection();
              PreparedStatement ps =
                  c.prepareStatement(
                      "INSERT INTO example_sessions (tenant, id,"
                          + " started_at, state) VALUES (?, ?, ?, 'RUNNING')")) {
            ps.setString(1, tenant);
            ps.setString(2, id);
            ps.setString(3, startedAt);
            ps.executeUpdate();
          } catch (SQLException e) {
            if (e.getSQLState() == null || !e.getSQLState().startsWith("23")) {
              throw new IllegalStateException("could not start session " + id, e);
            }
            // started before: the same answer as the first time
          }
          Map<String, Object> state = sessionState(tenant, id);
          return Results.ok(
              "Session " + id + " started at " + state.get("started_at"),
              Map.of("session_id", id, "started_at", state.get("started_at")));
        });
  }

  /**
   * stop_session(session_id, end_at, summary, op_id?): keyed by the op_id an app mints for a queued
   * request, else by the natural key (session_id, end_at, summary): the same stop again is a retry,
   * and two devices' stops at the same minute with different summaries are two stops. Two different
   * stops of one session merge by an order-independent rule; with the JDBC claim store, the stop
   * and its stored result commit together.
   */
  SyncToolSpecification stopSession() {
    McpSchema.Tool tool =
        McpSchema.Tool.builder(
                "stop_session",
                Schemas.object(
                    List.of("end_at", "summary"),
                    entry(
                        "session_id",
                        Schemas.string(
                            "the session to stop (get_session without an id lists the running"
                                + " sessions; so does this tool when it is missing)")),
                    entry("end_at", Schemas.string("when the session ended, ISO-8601")),
                    entry("summary", Schemas.string("what was done"))))
            .description(
                "Stop a focus session. If two stops of one session arrive (from two devices), the"
                    + " earliest end wins and every stop is kept; a different later summary goes to"
                    + " the session's notes. op_id is for apps replaying queued requests: do not"
                    + " invent one.")
            .build();
    ToolPolicy policy =
        ToolPolicy.builder()
            .keyArgument("op_id")
            .keySources(KeySource.ARGUMENT)
            .naturalKey("session_id", "end_at", "summary")
            .required(false)
            .keepKeyArgument(true)
            .keyDescription(
                "For apps replaying a queued request: that request's id. Do not invent"
                    + " one; leave it out.")
            .build();
    if (server.jdbcStore != null && !server.isUngated("stop_session")) {
      return server.mcpGate.gateSingleCommit(
          tool,
          policy,
          server.jdbcStore.singleCommit(),
          (exchange, request, scope, connection) -> stop(exchange, request, connection));
    }
    SyncToolSpecification plain =
        new SyncToolSpecification(
            tool,
            (exchange, request) -> {
              try (Connection c = server.dataSource.getConnection()) {
                c.setAutoCommit(false);
                try {
                  CallToolResult result = stop(exchange, request, c);
                  c.commit();
                  return result;
                } catch (Exception e) {
                  c.rollback();
                  throw e;
                } finally {
                  c.setAutoCommit(true);
                }
              } catch (RuntimeException e) {
                throw e;
              } catch (Exception e) {
                throw new IllegalStateException(e);
              }
            });
    return server.gate(plain, policy);
  }

  private CallToolResult stop(McpSyncServerExchange exchange, CallToolRequest request, Connection c)
      throws SQLException {
    server.executed("stop_session");
    String tenant = server.tenant(exchange);
    Map<String, Object> args = request.arguments();
    String id = (String) args.get("session_id");
    String summary = (String) args.get("summary");
    String opId = (String) args.get("op_id");
    if (id == null) {
      return Results.error(
          "stop_session needs session_id; running sessions: "
              + runningSessions(c, tenant)
              + ". Call it again with the id of the one to stop.");
    }
    Instant asked;
    try {
      asked = Instant.parse((String) args.get("end_at"));
    } catch (DateTimeParseException | NullPointerException e) {
      return Results.error("end_at must be an ISO-8601 instant such as 2025-06-01T14:05:00Z");
    }
    // a queued app request may carry an end the device clock put ahead: nothing ends in the
    // future, so such an end is recorded as the server's now, and the result says so
    Instant now = Instant.now().truncatedTo(ChronoUnit.SECONDS);
    boolean clamped = asked.isAfter(now);
    String endAt = (clamped ? now : asked).toString();
    String startedAt;
    try (PreparedStatement ps =
        c.prepareStatement(
            "SELECT started_at FROM example_sessions"
                + " WHERE tenant = ? AND id = ? FOR UPDATE")) {
      ps.setString(1, tenant);
      ps.setString(2, id);
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next()) {
          return Results.error(
              "there is no session " + id + "; running sessions: " + runningSessions(c, tenant));
        }
        startedAt = rs.getString(1);
      }
    }
    if (endAt.compareTo(startedAt) < 0) {
      return Results.error(
          "end_at " + endAt + " is before the session started (" + startedAt + ")");
    }
    try (PreparedStatement ps =
        c.prepareStatement(
            "INSERT INTO example_session_stops (tenant,"
                + " session_id, end_at, summary, op_id) VALUES (?, ?, ?, ?, ?)")) {
      ps.setString(1, tenant);
      ps.setString(2, id);
      ps.setString(3, endAt);
      ps.setString(4, summary);
      ps.setString(5, opId);
      ps.executeUpdate();
    }
    Merged merged = merge(stops(c, tenant, id));
    try (PreparedStatement ps =
        c.prepareStatement(
            "UPDATE example_sessions SET state = 'ENDED',"
                + " ended_at = ?, summary = ?, notes = ? WHERE tenant = ? AND id = ?")) {
      ps.setString(1, merged.endedAt);
      ps.setString(2, merged.summary);
      ps.setString(3, merged.notes);
      ps.setString(4, tenant);
      ps.setString(5, id);
      ps.executeUpdate();
    }
    String message =
        (endAt.equals(merged.endedAt) && summary.equals(merged.summary)
                ? "Stopped " + id + " at " + endAt
                : "Session "
                    + id
                    + " had already stopped at "
                    + merged.endedAt
                    + "; your stop at "
                    + endAt
                    + " is kept"
                    + (summary.equals(merged.summary) ? "" : " and its summary went to the notes"))
            + (clamped
                ? ". The end you sent, "
                    + asked
                    + ", is ahead of the server's clock; it was"
                    + " recorded as "
                    + endAt
                : "");
    Map<String, Object> structured = new LinkedHashMap<>();
    structured.put("session_id", id);
    structured.put("ended_at", merged.endedAt);
    structured.put("summary", merged.summary);
    structured.put("notes", merged.notes);
    if (clamped) {
      structured.put("end_at_clamped_from", asked.toString());
    }
    return Results.ok(message, structured);
  }

  /** One stop as recorded. */
  record Stop(String endAt, String summary) {}

  /** The session's state as the stops decide it. */
  record Merged(String endedAt, String summary, String notes) {}

  /**
   * The merge rule, order-independent by construction (a function of the set of stops): the
   * earliest end wins; its summary is the session's; every other different summary goes to the
   * notes, in end order.
   */
  static Merged merge(List<Stop> stops) {
    List<Stop> sorted = new ArrayList<>(stops);
    sorted.sort(Comparator.comparing(Stop::endAt).thenComparing(Stop::summary));
    Stop first = sorted.get(0);
    List<String> notes = new ArrayList<>();
    for (Stop s : sorted.subList(1, sorted.size())) {
      if (!s.summary().equals(first.summary()) && !notes.contains(s.summary())) {
        notes.add(s.summary() + " (stop at " + s.endAt() + ")");
      }
    }
    return new Merged(
        first.endAt(), first.summary(), notes.isEmpty() ? null : String.join("\n", notes));
  }

  private static List<Stop> stops(Connection c, String tenant, String id) throws SQLException {
    List<Stop> stops = new ArrayList<>();
    try (PreparedStatement ps =
        c.prepareStatement(
            "SELECT end_at, summary FROM"
                + " example_session_stops WHERE tenant = ? AND session_id = ?")) {
      ps.setString(1, tenant);
      ps.setString(2, id);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          stops.add(new Stop(rs.getString(1), rs.getString(2)));
        }
      }
    }
    return stops;
  }

  private static String runningSessions(Connection c, String tenant) throws SQLException {
    List<String> running = running(c, tenant);
    return running.isEmpty() ? "none" : String.join(", ", running);
  }

  /** The running sessions, "id (started at)", oldest first. */
  private static List<String> running(Connection c, String tenant) throws SQLException {
    List<String> running = new ArrayList<>();
    try (PreparedStatement ps =
        c.prepareStatement(
            "SELECT id, started_at FROM example_sessions"
                + " WHERE tenant = ? AND state = 'RUNNING' ORDER BY started_at")) {
      ps.setString(1, tenant);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          running.add(rs.getString(1) + " (started " + rs.getString(2) + ")");
        }
      }
    }
    return running;
  }

  /** get_session(session_id?): read-only, never gated; without an id, the running sessions. */
  SyncToolSpecification getSession() {
    McpSchema.Tool tool =
        McpSchema.Tool.builder(
                "get_session",
                Schemas.object(
                    List.of(),
                    entry(
                        "session_id",
                        Schemas.string("the session's id; leave it out to list running sessions"))))
            .description(
                "Read a session: its state, end, summary, notes and every stop received. Without"
                    + " session_id: the running sessions' ids.")
            .annotations(
                new McpSchema.ToolAnnotations("Read a session", true, false, true, false, null))
            .build();
    return new SyncToolSpecification(
        tool,
        (exchange, request) -> {
          if (request.arguments().get("session_id") == null) {
            try (Connection c = server.dataSource.getConnection()) {
              List<String> running = running(c, server.tenant(exchange));
              return Results.ok(
                  "running sessions: " + (running.isEmpty() ? "none" : String.join(", ", running)),
                  Map.of("running_sessions", running));
            } catch (SQLException e) {
              throw new IllegalStateException("could not list the running sessions", e);
            }
          }
          Map<String, Object> s =
              sessionState(server.tenant(exchange), (String) request.arguments().get("session_id"));
          return s == null
              ? Results.error("there is no session " + request.arguments().get("session_id"))
              : Results.ok(s.get("state") + " session " + s.get("id"), s);
        });
  }

  /** The stored state of a session and its stops (without its id in the stops), or null. */
  Map<String, Object> sessionState(String tenant, String id) {
    try (Connection c = server.dataSource.getConnection()) {
      Map<String, Object> s = new LinkedHashMap<>();
      try (PreparedStatement ps =
          c.prepareStatement(
              "SELECT id, started_at, state, ended_at,"
                  + " summary, notes FROM example_sessions WHERE tenant = ? AND id = ?")) {
        ps.setString(1, tenant);
        ps.setString(2, id);
        try (ResultSet rs = ps.executeQuery()) {
          if (!rs.next()) {
            return null;
          }
          s.put("id", rs.getString(1));
          s.put("started_at", rs.getString(2));
          s.put("state", rs.getString(3));
          s.put("ended_at", rs.getString(4));
          s.put("summary", rs.getString(5));
          s.put("notes", rs.getString(6));
        }
      }
      List<String> stops = new ArrayList<>();
      for (Stop stop : stops(c, tenant, id)) {
        stops.add(stop.endAt() + " " + stop.summary());
      }
      stops.sort(null);
      s.put("stops", stops);
      return s;
    } catch (SQLException e) {
      throw new IllegalStateException("could not read session " + id, e);
    }
  }
}
