package dev.mcpgate.examples;

import static java.util.Map.entry;

import dev.mcpgate.core.ClaimOutcome;
import dev.mcpgate.core.GatePolicy;
import dev.mcpgate.core.IdempotencyGate;
import dev.mcpgate.core.ToolCall;
import dev.mcpgate.mcp.KeySource;
import dev.mcpgate.mcp.ToolPolicy;
import io.modelcontextprotocol.server.McpServerFeatures.SyncToolSpecification;
import io.modelcontextprotocol.server.McpSyncServerExchange;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Stories: a replace that is safe by construction, an announcement claimed once, a counter. */
final class StoryTools {
  private final ExampleServer server;
  private final IdempotencyGate announceGate;

  StoryTools(ExampleServer server) {
    this.server = server;
    // one claim per slug, kept ten years: a story is announced once, ever
    this.announceGate =
        server.gate.withPolicy(
            GatePolicy.builder()
                .retention(Duration.ofDays(3650))
                .lease(Duration.ofMinutes(1))
                .inFlightWait(Duration.ZERO)
                .build());
  }

  /**
   * publish_story(slug, title, body): a replace keyed by slug, so not gated by a key (declared
   * idempotent); a republish updates title and body and keeps the counters. Its announcement is
   * guarded by a once-only claim per slug, taken before posting and released if the post fails.
   */
  SyncToolSpecification publishStory() {
    McpSchema.Tool tool =
        McpSchema.Tool.builder(
                "publish_story",
                Schemas.object(
                    List.of("slug", "title", "body"),
                    entry("slug", Schemas.string("the story's stable id, e.g. flaky-login")),
                    entry("title", Schemas.string("the title")),
                    entry("body", Schemas.string("the text"))))
            .description(
                "Publish a story, or republish it with a new title and body. Safe to retry:"
                    + " a story is replaced by its slug, and announced once.")
            .annotations(
                new McpSchema.ToolAnnotations("Publish a story", false, false, true, true, null))
            .build();
    return new SyncToolSpecification(
        tool,
        (exchange, request) -> {
          server.executed("publish_story");
          String tenant = server.tenant(exchange);
          String slug = (String) request.arguments().get("slug");
          String title = (String) request.arguments().get("title");
          String body = (String) request.arguments().get("body");
          try (Connection c = server.dataSource.getConnection()) {
            upsert(c, tenant, slug, title, body);
          } catch (SQLException e) {
            throw new IllegalStateException("could not save story " + slug, e);
          }
          String failure = announce(tenant, slug, title);
          Map<String, Object> story = storyRow(tenant, slug);
          Object uri = story.get("announced_uri");
          String announcement =
              failure != null
                  ? failure
                  : uri != null ? "announced at " + uri : "announcement in progress";
          Map<String, Object> structured = new LinkedHashMap<>();
          structured.put("slug", slug);
          structured.put("title", story.get("title"));
          structured.put("announced_uri", uri);
          return Results.ok(
              "Published " + slug + ": " + story.get("title") + "; " + announcement, structured);
        });
  }

  private static void upsert(Connection c, String tenant, String slug, String title, String body)
      throws SQLException {
    for (int round = 0; round < 3; round++) {
      try (PreparedStatement update =
          c.prepareStatement(
              "UPDATE example_stories SET title = ?,"
                  + " body = ? WHERE tenant = ? AND slug = ?")) {
        update.setString(1, title);
        update.setString(2, body);
        update.setString(3, tenant);
        update.setString(4, slug);
        if (update.executeUpdate() == 1) {
          return;
        }
      }
      try (PreparedStatement insert =
          c.prepareStatement(
              "INSERT INTO example_stories"
                  + " (tenant, slug, title, body, reproductions) VALUES (?, ?, ?, ?, 0)")) {
        insert.setString(1, tenant);
        insert.setString(2, slug);
        insert.setString(3, title);
        insert.setString(4, body);
        insert.executeUpdate();
        return;
      } catch (SQLException e) {
        if (e.getSQLState() == null || !e.getSQLState().startsWith("23")) {
          throw e;
        }
        // a concurrent first publish inserted it: update instead
      }
    }
  }

  /** Posts the announcement once per slug; returns null, or why it failed. */
  private String announce(String tenant, String slug, String title) {
    ClaimOutcome outcome =
        announceGate.claim(ToolCall.of(tenant, "announce_story", slug, Map.of("slug", slug)));
    if (!(outcome instanceof ClaimOutcome.Acquired claim)) {
      return null; // announced before, or being announced right now
    }
    Externals.Post post;
    try {
      post = server.externals.social.post("New story: " + title);
    } catch (RuntimeException e) {
      announceGate.release(claim);
      return "the announcement failed ("
          + e.getMessage()
          + "); it is tried again on the next publish";
    }
    announceGate.complete(
        claim, post.uri().getBytes(java.nio.charset.StandardCharsets.UTF_8), false);
    try (Connection c = server.dataSource.getConnection();
        PreparedStatement ps =
            c.prepareStatement(
                "UPDATE example_stories SET announced_uri = ?"
                    + " WHERE tenant = ? AND slug = ?")) {
      ps.setString(1, post.uri());
      ps.setString(2, tenant);
      ps.setString(3, slug);
      ps.executeUpdate();
    } catch (SQLException e) {
      throw new IllegalStateException("posted " + post.uri() + " but could not record it", e);
    }
    return null;
  }

  /**
   * report_reproduction(story_slug, reporter): counts once per (story, reporter), even for two
   * parallel calls: the gate's natural key makes retries replays, and the table's primary key keeps
   * the count right beyond the retention. The story's existence, the reporter's row and the counter
   * are one transaction: a report refused for a missing story leaves nothing behind.
   */
  SyncToolSpecification reportReproduction() {
    McpSchema.Tool tool =
        McpSchema.Tool.builder(
                "report_reproduction",
                Schemas.object(
                    List.of("story_slug", "reporter"),
                    entry("story_slug", Schemas.string("the story that was reproduced")),
                    entry("reporter", Schemas.string("who reproduced it"))))
            .description("Report that you reproduced a story's problem. Counts once per reporter.")
            .build();
    SyncToolSpecification spec =
        new SyncToolSpecification(
            tool,
            (exchange, request) -> {
              server.executed("report_reproduction");
              String tenant = server.tenant(exchange);
              String slug = (String) request.arguments().get("story_slug");
              String reporter = (String) request.arguments().get("reporter");
              try (Connection c = server.dataSource.getConnection()) {
                return count(c, tenant, slug, reporter);
              } catch (SQLException e) {
                throw new IllegalStateException("could not count the reproduction of " + slug, e);
              }
            });
    return server.gate(
        spec,
        ToolPolicy.builder()
            .keySources(KeySource.NATURAL)
            .naturalKey("story_slug", "reporter")
            .build());
  }

  /**
   * Counts the reporter's reproduction in one transaction: the story row is locked first, so a
   * report of a story that does not exist is refused before anything is written, and the reporter's
   * row and the counter commit together or not at all.
   */
  private static CallToolResult count(Connection c, String tenant, String slug, String reporter)
      throws SQLException {
    boolean counted;
    c.setAutoCommit(false);
    try {
      try (PreparedStatement ps =
          c.prepareStatement(
              "SELECT reproductions FROM example_stories"
                  + " WHERE tenant = ? AND slug = ? FOR UPDATE")) {
        ps.setString(1, tenant);
        ps.setString(2, slug);
        try (ResultSet rs = ps.executeQuery()) {
          if (!rs.next()) {
            c.rollback();
            return Results.error("there is no story " + slug);
          }
        }
      }
      try (PreparedStatement ps =
          c.prepareStatement(
              "INSERT INTO example_reproductions"
                  + " (tenant, story_slug, reporter) VALUES (?, ?, ?)")) {
        ps.setString(1, tenant);
        ps.setString(2, slug);
        ps.setString(3, reporter);
        ps.executeUpdate();
        counted = true;
      } catch (SQLException e) {
        if (e.getSQLState() == null || !e.getSQLState().startsWith("23")) {
          throw e;
        }
        counted = false; // counted before: the primary key says so
      }
      if (counted) {
        try (PreparedStatement ps =
            c.prepareStatement(
                "UPDATE example_stories SET reproductions"
                    + " = reproductions + 1 WHERE tenant = ? AND slug = ?")) {
          ps.setString(1, tenant);
          ps.setString(2, slug);
          ps.executeUpdate();
        }
        c.commit();
      } else {
        c.rollback(); // nothing was written; PostgreSQL's transaction is aborted by the error
      }
    } catch (SQLException | RuntimeException e) {
      c.rollback();
      throw e;
    } finally {
      c.setAutoCommit(true);
    }
    int count = reproductions(c, tenant, slug);
    return Results.ok(
        (counted ? "Counted" : "Already counted")
            + " your reproduction of "
            + slug
            + "; "
            + count
            + " so far",
        Map.of("reproductions", count));
  }

  private static int reproductions(Connection c, String tenant, String slug) throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement(
            "SELECT reproductions FROM example_stories" + " WHERE tenant = ? AND slug = ?")) {
      ps.setString(1, tenant);
      ps.setString(2, slug);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? rs.getInt(1) : 0;
      }
    }
  }

  /** get_story(slug): read-only, never gated. */
  SyncToolSpecification getStory() {
    McpSchema.Tool tool =
        McpSchema.Tool.builder(
                "get_story",
                Schemas.object(List.of("slug"), entry("slug", Schemas.string("the story's slug"))))
            .description("Read a story with its reproduction count.")
            .annotations(
                new McpSchema.ToolAnnotations("Read a story", true, false, true, false, null))
            .build();
    return new SyncToolSpecification(
        tool, (exchange, request) -> story(exchange, (String) request.arguments().get("slug")));
  }

  CallToolResult story(McpSyncServerExchange exchange, String slug) {
    Map<String, Object> story = storyRow(server.tenant(exchange), slug);
    return story == null
        ? Results.error("there is no story " + slug)
        : Results.ok(
            story.get("title") + " (" + story.get("reproductions") + " reproductions)", story);
  }

  Map<String, Object> storyRow(String tenant, String slug) {
    try (Connection c = server.dataSource.getConnection();
        PreparedStatement ps =
            c.prepareStatement(
                "SELECT slug, title, body, reproductions,"
                    + " announced_uri FROM example_stories WHERE tenant = ? AND slug = ?")) {
      ps.setString(1, tenant);
      ps.setString(2, slug);
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next()) {
          return null;
        }
        Map<String, Object> story = new LinkedHashMap<>();
        story.put("slug", rs.getString(1));
        story.put("title", rs.getString(2));
        story.put("body", rs.getString(3));
        story.put("reproductions", rs.getInt(4));
        story.put("announced_uri", rs.getString(5));
        return story;
      }
    } catch (SQLException e) {
      throw new IllegalStateException("could not read story " + slug, e);
    }
  }
}
