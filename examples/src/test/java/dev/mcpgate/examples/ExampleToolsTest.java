package dev.mcpgate.examples;

import static dev.mcpgate.examples.Calls.call;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.mcpgate.mcp.TenantResolver;
import dev.mcpgate.testkit.ArrivalOrderCheck;
import dev.mcpgate.testkit.RetryCheck;
import dev.mcpgate.testkit.ToolSurvey;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.opentest4j.AssertionFailedError;

/**
 * Every write tool of the example server through the testkit, over Streamable HTTP with a real
 * client; and the proof that the kit bites: with the gate taken off refund_order, it reports the
 * duplicate.
 */
class ExampleToolsTest {
  @TempDir Path tmp;
  private static final String TENANT = "kit";

  /** The tenant as the tools store it: the context resolver tags the header's value. */
  private static final String STORED = "context:" + TENANT;

  private ExampleServer server;
  private Transports.Http http;
  private McpSyncClient client;

  private McpSyncClient start(Set<String> ungated) throws Exception {
    String url = "jdbc:h2:file:" + tmp.resolve("db");
    server =
        new ExampleServer(
            new ExampleServer.Config(
                url, null, null, TenantResolver.fromTransportContext("tenant"), ungated));
    http = Transports.http(0, server.tools());
    client =
        McpClient.sync(
                HttpClientStreamableHttpTransport.builder("http://127.0.0.1:" + http.port())
                    .endpoint("/mcp")
                    .httpRequestCustomizer((b, m, u, body, ctx) -> b.header("X-Tenant", TENANT))
                    .build())
            .requestTimeout(Duration.ofSeconds(60))
            .build();
    client.initialize();
    return client;
  }

  @AfterEach
  void stop() {
    if (client != null) {
      client.closeGracefully();
    }
    if (http != null) {
      http.close();
    }
    if (server != null) {
      server.close();
    }
  }

  @Test
  void everyWriteToolIsGatedOrDeclaredSafe() throws Exception {
    ToolSurvey survey = ToolSurvey.of(start(Set.of()));

    survey.assertAllWriteToolsGated();
    assertThat(survey.declaredSafe())
        .extracting(ToolSurvey.Entry::tool)
        .containsExactlyInAnyOrder("publish_story", "start_session");
    assertThat(survey.table())
        .contains("refund_order")
        .contains("natural key [story_slug, reporter]");
  }

  @Test
  void refundOrderIsSafeToRetry() throws Exception {
    RetryCheck.of(start(Set.of()))
        .probe("refunds", () -> server.externals.payments.refunds.size())
        .expectFirstCallChange("refunds", 1)
        .assertSafeToRetry(
            call(
                "refund_order",
                "order_id",
                "ord_9f2",
                "amount_cents",
                500,
                "idempotency_key",
                "r-1"))
        .assertConcurrentFirstCallsRunOnce(
            call(
                "refund_order",
                "order_id",
                "ord_9f2",
                "amount_cents",
                700,
                "idempotency_key",
                "r-2"))
        .assertConflictRefused(
            call(
                "refund_order",
                "order_id",
                "ord_9f2",
                "amount_cents",
                500,
                "idempotency_key",
                "r-1"),
            call(
                "refund_order",
                "order_id",
                "ord_9f2",
                "amount_cents",
                900,
                "idempotency_key",
                "r-1"));
  }

  @Test
  void sendPasswordResetIsSafeToRetry() throws Exception {
    RetryCheck.of(start(Set.of()))
        .probe("mails", () -> server.externals.mailer.sent.size())
        .expectFirstCallChange("mails", 1)
        .assertSafeToRetry(
            call("send_password_reset", "email", "ada@example.com", "idempotency_key", "m-1"))
        .assertConcurrentFirstCallsRunOnce(
            call("send_password_reset", "email", "bob@example.com", "idempotency_key", "m-2"))
        .assertConflictRefused(
            call("send_password_reset", "email", "ada@example.com", "idempotency_key", "m-1"),
            call("send_password_reset", "email", "eve@example.com", "idempotency_key", "m-1"));
  }

  @Test
  void publishStoryIsSafeByConstructionAndPostsOnce() throws Exception {
    McpSyncClient c = start(Set.of());
    c.callTool(call("publish_story", "slug", "flaky-login", "title", "Login", "body", "b"));
    c.callTool(call("report_reproduction", "story_slug", "flaky-login", "reporter", "ada"));

    RetryCheck.of(c)
        .probe("posts", () -> server.externals.social.posts.size())
        .probe("story", () -> server.stories.storyRow(STORED, "flaky-login"))
        .assertSafeToRetry(
            call("publish_story", "slug", "flaky-login", "title", "Login fails", "body", "steps"));
    assertThat(server.stories.storyRow(STORED, "flaky-login"))
        .containsEntry("reproductions", 1)
        .containsEntry("title", "Login fails");
    assertThat(server.externals.social.posts).hasSize(1);
  }

  @Test
  void aFailedAnnouncementIsReleasedAndTriedAgain() throws Exception {
    McpSyncClient c = start(Set.of());
    server.externals.social.failNext.set(true);
    c.callTool(call("publish_story", "slug", "s", "title", "T", "body", "b"));
    assertThat(server.externals.social.posts).isEmpty();

    c.callTool(call("publish_story", "slug", "s", "title", "T", "body", "b"));

    assertThat(server.externals.social.posts).hasSize(1);
  }

  @Test
  void reportReproductionCountsOncePerReporter() throws Exception {
    McpSyncClient c = start(Set.of());
    c.callTool(call("publish_story", "slug", "flaky-login", "title", "Login", "body", "b"));

    RetryCheck.of(c)
        .probe(
            "reproductions",
            () -> server.stories.storyRow(STORED, "flaky-login").get("reproductions"))
        .expectFirstCallChange("reproductions", 1)
        .assertSafeToRetry(
            call("report_reproduction", "story_slug", "flaky-login", "reporter", "ada"))
        .assertConcurrentFirstCallsRunOnce(
            call("report_reproduction", "story_slug", "flaky-login", "reporter", "bob"));
  }

  @Test
  void sessionsAreSafeToStartStopAndMergeInEitherOrder() throws Exception {
    McpSyncClient c = start(Set.of());
    RetryCheck.of(c)
        .probe("session", () -> server.sessions.sessionState(STORED, "s-1"))
        .assertSafeToRetry(
            call("start_session", "session_id", "s-1", "started_at", "2025-06-01T13:00:00Z"));
    RetryCheck.of(c)
        .probe("stops", () -> server.sessions.sessionState(STORED, "s-1").get("stops"))
        .assertSafeToRetry(
            call(
                "stop_session",
                "session_id",
                "s-1",
                "end_at",
                "2025-06-01T14:05:00Z",
                "summary",
                "intro",
                "op_id",
                "op-1"))
        .assertConflictRefused(
            call(
                "stop_session",
                "session_id",
                "s-1",
                "end_at",
                "2025-06-01T14:05:00Z",
                "summary",
                "intro",
                "op_id",
                "op-1"),
            call(
                "stop_session",
                "session_id",
                "s-1",
                "end_at",
                "2025-06-01T14:40:00Z",
                "summary",
                "other",
                "op_id",
                "op-1"));

    AtomicInteger sessions = new AtomicInteger();
    ArrivalOrderCheck.assertSameEndState(
        c,
        () -> {
          String id = "order-" + sessions.incrementAndGet();
          c.callTool(call("start_session", "session_id", id, "started_at", "2025-06-01T13:00:00Z"));
          return id;
        },
        id ->
            call(
                "stop_session",
                "session_id",
                id,
                "end_at",
                "2025-06-01T14:05:00Z",
                "summary",
                "wrote the intro",
                "op_id",
                id + "-phone"),
        id ->
            call(
                "stop_session",
                "session_id",
                id,
                "end_at",
                "2025-06-01T14:20:00Z",
                "summary",
                "wrote intro and outline",
                "op_id",
                id + "-laptop"),
        id -> {
          Map<String, Object> state = new HashMap<>(server.sessions.sessionState(STORED, id));
          state.remove("id");
          return state;
        });
  }

  @Test
  void theKitReportsTheDuplicateWhenTheGateIsTakenOffAWriteTool() throws Exception {
    McpSyncClient c = start(Set.of("refund_order"));

    assertThat(ToolSurvey.of(c).notGated())
        .extracting(ToolSurvey.Entry::tool)
        .containsExactly("refund_order");
    assertThatThrownBy(
            () ->
                RetryCheck.of(c)
                    .probe("refunds", () -> server.externals.payments.refunds.size())
                    .assertSafeToRetry(
                        call(
                            "refund_order",
                            "order_id",
                            "ord_9f2",
                            "amount_cents",
                            500,
                            "idempotency_key",
                            "r-1")))
        .isInstanceOf(AssertionFailedError.class)
        .hasMessageContaining("refund_order")
        .hasMessageContaining("ran again");
    assertThat(server.externals.payments.refunds).hasSize(2);
  }
}
