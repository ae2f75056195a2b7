package dev.mcpgate.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.mcpgate.jdbc.TestDatabases;
import dev.mcpgate.mcp.McpGateErrors;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.aop.support.AopUtils;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * A real Spring Boot application (Spring AI's MCP server over Streamable HTTP, Tomcat) with the
 * starter and a DataSource on a real PostgreSQL, called by a real MCP client: no code wires the
 * gate.
 */
class SpringBootStarterTest {
  private static ConfigurableApplicationContext app;
  private static McpSyncClient client;
  private static final String TENANT = "acme-" + System.nanoTime();

  static SpringApplicationBuilder server(String... properties) {
    TestDatabases.Target pg = TestDatabases.postgres();
    SpringApplicationBuilder b =
        new SpringApplicationBuilder(RefundServer.class)
            .properties(
                "server.port=0",
                "spring.datasource.url=" + pg.url(),
                "mcpgate.create-schema-if-missing=true",
                "mcpgate.table-name=mcpgate_boot_claims",
                "mcpgate.tenant.header=X-Tenant",
                "mcpgate.tenant.sources=header",
                "spring.main.banner-mode=off",
                "mcpgate.audit.enabled=true",
                "mcpgate.audit.table-name=mcpgate_boot_audit",
                "spring.ai.mcp.server.protocol=STREAMABLE");
    if (pg.user() != null) {
      b.properties(
          "spring.datasource.username=" + pg.user(), "spring.datasource.password=" + pg.password());
    }
    return b.properties(properties);
  }

  static McpSyncClient client(ConfigurableApplicationContext context, String tenant) {
    int port = ((WebServerApplicationContext) context).getWebServer().getPort();
    McpSyncClient c =
        McpClient.sync(
                HttpClientStreamableHttpTransport.builder("http://127.0.0.1:" + port)
                    .endpoint("/mcp")
                    .httpRequestCustomizer(
                        (request, method, uri, body, ctx) -> {
                          if (!tenant.isEmpty()) {
                            request.header("X-Tenant", tenant);
                          }
                        })
                    .build())
            .build();
    c.initialize();
    return c;
  }

  @BeforeAll
  static void start() {
    app = server().run();
    client = client(app, TENANT);
  }

  @AfterAll
  static void stop() {
    if (client != null) {
      client.closeGracefully();
    }
    if (app != null) {
      app.close();
    }
  }

  private static CallToolResult refund(String key, int cents) {
    return client.callTool(
        new CallToolRequest(
            "refund_order",
            Map.of("orderId", "ord_9f2", "amountCents", cents, "idempotency_key", key)));
  }

  private static String text(CallToolResult r) {
    return ((McpSchema.TextContent) r.content().get(0)).text();
  }

  @Test
  void aRetriedRefundReplaysTheFirstResultAndRunsOnce() {
    int before = RefundServer.RefundTools.REFUNDS.get();
    CallToolResult first = refund("k-replay", 500);
    CallToolResult retry = refund("k-replay", 500);

    assertThat(first.isError()).as(text(first)).isNotEqualTo(Boolean.TRUE);
    assertThat(text(retry)).isEqualTo(text(first)).contains("500 cents for ord_9f2");
    assertThat(RefundServer.RefundTools.REFUNDS.get()).isEqualTo(before + 1);
  }

  @Test
  void theSameKeyWithOtherArgumentsIsAConflict() {
    refund("k-conflict", 500);
    int before = RefundServer.RefundTools.REFUNDS.get();
    CallToolResult conflict = refund("k-conflict", 900);

    assertThat(conflict.isError()).isTrue();
    @SuppressWarnings("unchecked")
    Map<String, Object> error =
        (Map<String, Object>) ((Map<String, Object>) conflict.structuredContent()).get("error");
    assertThat(error).containsEntry("type", McpGateErrors.KEY_CONFLICT);
    assertThat(RefundServer.RefundTools.REFUNDS.get()).isEqualTo(before);
  }

  @Test
  void theGatedToolAsksForAKeyAndTheOthersAreLeftAlone() {
    Map<String, McpSchema.Tool> tools = new java.util.HashMap<>();
    client.listTools().tools().forEach(t -> tools.put(t.name(), t));

    assertThat(tools.get("refund_order").inputSchema().get("properties").toString())
        .contains("idempotency_key");
    assertThat(tools.get("add_note").inputSchema().get("properties").toString())
        .doesNotContain("idempotency_key");
    CallToolResult note1 = client.callTool(new CallToolRequest("add_note", Map.of("text", "hi")));
    CallToolResult note2 = client.callTool(new CallToolRequest("add_note", Map.of("text", "hi")));
    assertThat(text(note2)).isNotEqualTo(text(note1)); // ungated: it ran twice
  }

  @Test
  void theToolBeanIsATransactionalProxyAndIsStillGated() {
    Object tools = app.getBean(RefundServer.RefundTools.class);
    assertThat(AopUtils.isAopProxy(tools)).isTrue();
    assertThat(refund("k-proxy", 700).isError()).isNotEqualTo(Boolean.TRUE);
    assertThat(refund("k-proxy", 701).isError()).isTrue(); // gated: a conflict
  }

  @Test
  void aCallWithoutATenantIsRefused() {
    McpSyncClient anonymous = client(app, "");
    try {
      CallToolResult r =
          anonymous.callTool(
              new CallToolRequest(
                  "refund_order",
                  Map.of("orderId", "ord_1", "amountCents", 1, "idempotency_key", "k-anon")));
      assertThat(r.isError()).isTrue();
      // a request without the tenant header: the client's fix, not only the server's
      assertThat(text(r))
          .contains("could not tell which account")
          .contains("the fix is the client's")
          .doesNotContain("This is a server configuration problem");
    } finally {
      anonymous.closeGracefully();
    }
  }

  @Test
  void withMicrometerThereTheDecisionsAreCounted() {
    io.micrometer.core.instrument.MeterRegistry meters =
        app.getBean(io.micrometer.core.instrument.MeterRegistry.class);
    refund("k-metrics", 300);
    refund("k-metrics", 300);

    assertThat(
            meters
                .get("mcpgate.calls")
                .tags(
                    "tool",
                    "refund_order",
                    "outcome",
                    "replayed",
                    "store",
                    "jdbc",
                    "key_source",
                    "argument")
                .counter()
                .count())
        .isGreaterThanOrEqualTo(1);
    assertThat(meters.get("mcpgate.calls").tags("outcome", "executed").counter().count())
        .isGreaterThanOrEqualTo(1);
  }

  @Test
  void withMicrometerThereCallsRefusedBeforeTheGateAreCountedToo() {
    io.micrometer.core.instrument.MeterRegistry meters =
        app.getBean(io.micrometer.core.instrument.MeterRegistry.class);
    double noTenant = rejected(meters, "rejected.tenant_unknown");
    double noKey = rejected(meters, "rejected.key_required");
    McpSyncClient anonymous = client(app, "");
    try {
      anonymous.callTool(
          new CallToolRequest(
              "refund_order",
              Map.of("orderId", "ord_1", "amountCents", 1, "idempotency_key", "k-anon-metrics")));
    } finally {
      anonymous.closeGracefully();
    }
    client.callTool(
        new CallToolRequest("refund_order", Map.of("orderId", "ord_1", "amountCents", 1)));

    assertThat(rejected(meters, "rejected.tenant_unknown")).isEqualTo(noTenant + 1);
    assertThat(rejected(meters, "rejected.key_required")).isEqualTo(noKey + 1);
    for (io.micrometer.core.instrument.Meter m : meters.find("mcpgate.calls").meters()) {
      assertThat(m.getId().getTags().toString()).doesNotContain(TENANT, "k-anon-metrics", "ord_1");
    }
  }

  private static double rejected(
      io.micrometer.core.instrument.MeterRegistry meters, String outcome) {
    io.micrometer.core.instrument.Counter c =
        meters
            .find("mcpgate.calls")
            .tags("tool", "refund_order", "outcome", outcome, "store", "jdbc", "key_source", "none")
            .counter();
    return c == null ? 0 : c.count();
  }

  @Test
  void everyDecisionIsInTheAuditTable() throws Exception {
    refund("k-audit", 400);
    refund("k-audit", 400);
    refund("k-audit", 401);
    dev.mcpgate.jdbc.JdbcAuditSink sink = app.getBean(dev.mcpgate.jdbc.JdbcAuditSink.class);
    assertThat(sink.flush(java.time.Duration.ofSeconds(30))).isTrue();

    var history =
        dev.mcpgate.jdbc.JdbcAuditLog.of(
                app.getBean(javax.sql.DataSource.class), "mcpgate_boot_audit")
            .history("header:" + TENANT, "refund_order", "k-audit");
    assertThat(history)
        .extracting(r -> r.decision().name())
        .containsExactly("EXECUTED", "REPLAYED", "CONFLICT");
  }

  @Test
  void keySourcesFromThePropertiesApplyWhereTheAnnotationLeftTheDefault() {
    try (ConfigurableApplicationContext metaOnly = server("mcpgate.key-sources=meta").run()) {
      McpSyncClient c = client(metaOnly, "acme-meta");
      try {
        CallToolResult withArgument =
            c.callTool(
                new CallToolRequest(
                    "refund_order",
                    Map.of("orderId", "ord_1", "amountCents", 5, "idempotency_key", "k-arg")));
        @SuppressWarnings("unchecked")
        Map<String, Object> error =
            (Map<String, Object>)
                ((Map<String, Object>) withArgument.structuredContent()).get("error");
        assertThat(error).containsEntry("type", McpGateErrors.KEY_REQUIRED);
      } finally {
        c.closeGracefully();
      }
    }
  }

  @Test
  void requireGatedWritesStopsAServerWithAnUngatedWriteTool() {
    assertThatThrownBy(() -> server("mcpgate.require-gated-writes=true").run())
        .hasStackTraceContaining("add_note")
        .hasStackTraceContaining("mcpgate.require-gated-writes");
    try (ConfigurableApplicationContext safe =
        server("mcpgate.require-gated-writes=true", "mcpgate.safe-tools=add_note").run()) {
      assertThat(safe.isRunning()).isTrue();
    }
  }

  @Test
  void expiredClaimsArePurgedOnTheirOwnThreadAndClosingTheContextStopsItAndTheGate()
      throws Exception {
    java.util.concurrent.atomic.AtomicReference<dev.mcpgate.core.IdempotencyGate> gate =
        new java.util.concurrent.atomic.AtomicReference<>();
    dev.mcpgate.core.ClaimId expired;
    try (ConfigurableApplicationContext purging =
        server(
                "mcpgate.purge.interval=100ms",
                "mcpgate.purge.batch-size=2",
                "mcpgate.retention=1s",
                "mcpgate.lease=500ms")
            .run()) {
      dev.mcpgate.core.spi.IdempotencyStore store =
          purging.getBean(dev.mcpgate.core.spi.IdempotencyStore.class);
      gate.set(purging.getBean(dev.mcpgate.core.IdempotencyGate.class));
      assertThat(purging.getBean(dev.mcpgate.core.purge.ClaimPurger.class)).isNotNull();
      String tenant = "purge-" + System.nanoTime();
      for (int i = 0; i < 5; i++) {
        gate.get()
            .execute(
                dev.mcpgate.core.ToolCall.of(tenant, "refund_order", "k" + i, Map.of()),
                dev.mcpgate.core.ResultMapper.utf8(),
                ctx -> "done");
      }
      expired = new dev.mcpgate.core.ClaimId(tenant, "refund_order", "k4");
      assertThat(store.find(expired)).isPresent();
      long deadline = System.nanoTime() + 20_000_000_000L;
      while (store.find(expired).isPresent() && System.nanoTime() < deadline) {
        Thread.sleep(100);
      }
      assertThat(store.find(expired)).as("purged after its retention").isEmpty();
      assertThat(Thread.getAllStackTraces().keySet())
          .extracting(Thread::getName)
          .anyMatch(n -> n.startsWith("mcpgate-purge-"));
    }
    assertThat(
            gate.get()
                .execute(
                    dev.mcpgate.core.ToolCall.of("t", "x", "k", Map.of()),
                    dev.mcpgate.core.ResultMapper.utf8(),
                    ctx -> "ran"))
        .as("the gate was closed with the context")
        .isInstanceOfSatisfying(
            dev.mcpgate.core.GateResult.Failed.class,
            f -> assertThat(f.reason()).isEqualTo(dev.mcpgate.core.FailureReason.GATE_CLOSED));
  }

  @Test
  void thePurgeCanBeTurnedOff() {
    try (ConfigurableApplicationContext quiet = server("mcpgate.purge.enabled=false").run()) {
      assertThat(quiet.getBeansOfType(dev.mcpgate.core.purge.ClaimPurger.class)).isEmpty();
    }
  }
}
