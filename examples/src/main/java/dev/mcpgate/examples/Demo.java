package dev.mcpgate.examples;

import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.common.McpTransportContext;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.IntSupplier;

/**
 * Runs the example server over Streamable HTTP with real MCP clients, and sends every write tool
 * the calls a retrying client sends: once, again after a lost response, as 8 concurrent copies, and
 * with the same key but other arguments. stop_session also gets two different stops in both arrival
 * orders. Counts what ran and what happened outside, and checks it.
 */
final class Demo {
  /** A tenant of its own per run, so that a demo against a shared database starts clean. */
  final String tenant = "demo-" + java.util.UUID.randomUUID().toString().substring(0, 8);

  private final ExampleServer server;
  private final List<Step> steps = new ArrayList<>();

  Demo(ExampleServer server) {
    this.server = server;
  }

  /**
   * @return the tenant as the tools store it: the server's resolver gives it its source prefix
   *     ({@code context:} and the X-Tenant header)
   */
  private String stored() {
    return server.tenants.resolve(McpTransportContext.create(Map.of("tenant", tenant)));
  }

  /**
   * One row of the report.
   *
   * @param tool the tool
   * @param step what was sent
   * @param calls how many calls
   * @param executions how many times the handler ran
   * @param sideEffects how many effects happened outside (refunds, mails, posts, counts, stops)
   * @param outcomes what the callers got
   * @param expectedSideEffects what a correct server does
   */
  record Step(
      String tool,
      String step,
      int calls,
      int executions,
      int sideEffects,
      String outcomes,
      int expectedSideEffects,
      int expectedExecutions) {
    boolean ok() {
      return sideEffects == expectedSideEffects
          && (expectedExecutions < 0 || executions == expectedExecutions);
    }
  }

  /**
   * What the demo found.
   *
   * @param steps every row
   * @param orderA the session after phone-then-laptop
   * @param orderB the session after laptop-then-phone
   * @param notes a note per tool, printed above its table
   */
  record Report(
      List<Step> steps,
      Map<String, Object> orderA,
      Map<String, Object> orderB,
      Map<String, String> notes) {
    Report(List<Step> steps, Map<String, Object> orderA, Map<String, Object> orderB) {
      this(steps, orderA, orderB, DemoPrinter.toolNotes(true));
    }

    boolean ordersAgree() {
      return orderA.equals(orderB);
    }

    boolean passed() {
      return ordersAgree() && steps.stream().allMatch(Step::ok);
    }

    void print(PrintStream out) {
      DemoPrinter.print(this, out);
    }
  }

  Report run() throws Exception {
    try (Transports.Http http = Transports.http(0, server.tools())) {
      List<McpSyncClient> clients = new ArrayList<>();
      try {
        for (int i = 0; i < 8; i++) {
          clients.add(DemoCalls.client(http.port(), tenant));
        }
        McpSyncClient c = clients.get(0);
        Externals ext = server.externals;

        writeTool(
            clients,
            "refund_order",
            () -> ext.payments.refunds.size(),
            key -> DemoCalls.refund(key, 500),
            key -> DemoCalls.refund(key, 700),
            key -> DemoCalls.refund(key, 900));
        // an attempt that dies after the provider accepted the refund: the retry runs again,
        // and the provider, deduplicating by the downstream key, refunds once
        server.crashAfterNextRefund.set(true);
        step(
            clients.subList(0, 1),
            "refund_order",
            "attempt dies after the refund went out",
            () -> ext.payments.refunds.size(),
            1,
            1,
            DemoCalls.refund("refund_order-k3", 300));
        step(
            clients.subList(0, 1),
            "refund_order",
            "retry after the crash (same refund)",
            () -> ext.payments.refunds.size(),
            0,
            1,
            DemoCalls.refund("refund_order-k3", 300));
        writeTool(
            clients,
            "send_password_reset",
            () -> ext.mailer.sent.size(),
            key -> DemoCalls.mail(key, "ada@example.com"),
            key -> DemoCalls.mail(key, "bob@example.com"),
            key -> DemoCalls.mail(key, "eve@example.com"));

        // publish_story: a replace by slug, not gated; its announcement is claimed once
        IntSupplier posts = () -> ext.social.posts.size();
        step(
            clients.subList(0, 1),
            "publish_story",
            "first publish",
            posts,
            1,
            DemoCalls.publish("flaky-login", "Login fails on first try"));
        step(
            clients.subList(0, 1),
            "publish_story",
            "same call again (retry)",
            posts,
            0,
            DemoCalls.publish("flaky-login", "Login fails on first try"));
        step(
            clients,
            "publish_story",
            "8 concurrent first publishes",
            posts,
            1,
            DemoCalls.publish("slow-build", "The build got slow"));
        // report_reproduction: counts once per (story, reporter)
        IntSupplier count = () -> reproductions("flaky-login");
        step(
            clients.subList(0, 1),
            "report_reproduction",
            "first report",
            count,
            1,
            1,
            DemoCalls.reproduction("ada"));
        step(
            clients.subList(0, 1),
            "report_reproduction",
            "retry after a lost response",
            count,
            0,
            0,
            DemoCalls.reproduction("ada"));
        step(
            clients,
            "report_reproduction",
            "8 concurrent copies (new reporter)",
            count,
            1,
            1,
            DemoCalls.reproduction("bob"));
        step(
            clients.subList(0, 1),
            "report_reproduction",
            "another reporter (a new intent)",
            count,
            1,
            DemoCalls.reproduction("carol"));
        step(
            clients.subList(0, 1),
            "publish_story",
            "republish, new title: counters kept",
            count,
            0,
            DemoCalls.publish("flaky-login", "Login fails on the first try only"));

        // stop_session
        for (String id : List.of("s-1", "s-2", "s-a", "s-b")) {
          c.callTool(
              new CallToolRequest(
                  "start_session", Map.of("session_id", id, "started_at", "2025-06-01T13:00:00Z")));
        }
        IntSupplier stops =
            () ->
                server.sessions.sessionState(stored(), "s-1") == null
                    ? 0
                    : stopsOf("s-1") + stopsOf("s-2");
        step(
            clients.subList(0, 1),
            "stop_session",
            "first stop (op_id from the app)",
            stops,
            1,
            1,
            DemoCalls.stop("s-1", "2025-06-01T14:05:00Z", "wrote the intro", "op-phone-1"));
        step(
            clients.subList(0, 1),
            "stop_session",
            "retry after a lost response",
            stops,
            0,
            0,
            DemoCalls.stop("s-1", "2025-06-01T14:05:00Z", "wrote the intro", "op-phone-1"));
        step(
            clients,
            "stop_session",
            "8 concurrent copies (natural key)",
            stops,
            1,
            1,
            DemoCalls.stop("s-2", "2025-06-01T14:30:00Z", "reviewed", null));
        step(
            clients.subList(0, 1),
            "stop_session",
            "same op_id, other arguments",
            stops,
            0,
            0,
            DemoCalls.stop("s-1", "2025-06-01T14:50:00Z", "something else", "op-phone-1"));
        step(
            clients.subList(0, 1),
            "stop_session",
            "a stop without a session id",
            stops,
            0,
            DemoCalls.args(
                Map.of("end_at", "2025-06-01T15:00:00Z", "summary", "done"), "stop_session"));

        CallToolRequest phoneA =
            DemoCalls.stop("s-a", "2025-06-01T14:05:00Z", "wrote the intro", "op-pa");
        CallToolRequest laptopA =
            DemoCalls.stop("s-a", "2025-06-01T14:20:00Z", "wrote intro and outline", "op-la");
        CallToolRequest laptopB =
            DemoCalls.stop("s-b", "2025-06-01T14:20:00Z", "wrote intro and outline", "op-lb");
        CallToolRequest phoneB =
            DemoCalls.stop("s-b", "2025-06-01T14:05:00Z", "wrote the intro", "op-pb");
        c.callTool(phoneA);
        c.callTool(laptopA);
        c.callTool(laptopB);
        c.callTool(phoneB);
        Map<String, Object> a = new TreeMap<>(server.sessions.sessionState(stored(), "s-a"));
        Map<String, Object> b = new TreeMap<>(server.sessions.sessionState(stored(), "s-b"));
        a.remove("id");
        b.remove("id");
        return new Report(
            List.copyOf(steps), a, b, DemoPrinter.toolNotes(server.jdbcStore != null));
      } finally {
        clients.forEach(McpSyncClient::closeGracefully);
      }
    }
  }

  private void writeTool(
      List<McpSyncClient> clients,
      String tool,
      IntSupplier effects,
      Function<String, CallToolRequest> first,
      Function<String, CallToolRequest> concurrent,
      Function<String, CallToolRequest> otherArgs) {
    step(clients.subList(0, 1), tool, "first call", effects, 1, 1, first.apply(tool + "-k1"));
    step(
        clients.subList(0, 1),
        tool,
        "retry after a lost response",
        effects,
        0,
        0,
        first.apply(tool + "-k1"));
    step(clients, tool, "8 concurrent copies", effects, 1, 1, concurrent.apply(tool + "-k2"));
    step(
        clients.subList(0, 1),
        tool,
        "same key, other arguments",
        effects,
        0,
        0,
        otherArgs.apply(tool + "-k1"));
  }

  /** Sends the request once per client, all at once, and records a row. */
  private void step(
      List<McpSyncClient> clients,
      String tool,
      String name,
      IntSupplier effects,
      int expected,
      CallToolRequest request) {
    step(clients, tool, name, effects, expected, -1, request);
  }

  private void step(
      List<McpSyncClient> clients,
      String tool,
      String name,
      IntSupplier effects,
      int expected,
      int expectedExecutions,
      CallToolRequest request) {
    int executionsBefore = server.executions(request.name());
    int effectsBefore = effects.getAsInt();
    ExecutorService pool = Executors.newFixedThreadPool(clients.size());
    Map<String, Integer> outcomes = new LinkedHashMap<>();
    try {
      CountDownLatch go = new CountDownLatch(1);
      List<CompletableFuture<String>> calls = new ArrayList<>();
      for (McpSyncClient client : clients) {
        calls.add(
            CompletableFuture.supplyAsync(
                () -> {
                  try {
                    go.await();
                    return DemoCalls.outcome(client.callTool(request));
                  } catch (Exception e) {
                    return "exception: " + e.getMessage();
                  }
                },
                pool));
      }
      go.countDown();
      for (CompletableFuture<String> call : calls) {
        outcomes.merge(call.get(60, TimeUnit.SECONDS), 1, Integer::sum);
      }
    } catch (Exception e) {
      throw new IllegalStateException("step " + tool + " / " + name + " failed", e);
    } finally {
      pool.shutdownNow();
    }
    List<String> parts = new ArrayList<>();
    outcomes.forEach((o, n) -> parts.add(clients.size() == 1 ? o : n + " " + o));
    steps.add(
        new Step(
            tool,
            name,
            clients.size(),
            server.executions(request.name()) - executionsBefore,
            effects.getAsInt() - effectsBefore,
            String.join(", ", parts),
            expected,
            expectedExecutions));
  }

  private int reproductions(String slug) {
    Map<String, Object> story = server.stories.storyRow(stored(), slug);
    return story == null ? 0 : (Integer) story.get("reproductions");
  }

  private int stopsOf(String id) {
    Map<String, Object> s = server.sessions.sessionState(stored(), id);
    return s == null ? 0 : ((List<?>) s.get("stops")).size();
  }
}
