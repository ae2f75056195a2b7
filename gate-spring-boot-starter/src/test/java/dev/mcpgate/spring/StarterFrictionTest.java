package dev.mcpgate.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.core.IdempotencyGate;
import dev.mcpgate.core.ResultMapper;
import dev.mcpgate.core.ToolCall;
import dev.mcpgate.jdbc.TestDatabases;
import dev.mcpgate.mcp.McpGateErrors;
import io.micrometer.core.instrument.MeterRegistry;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.PrintStream;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.springframework.context.ConfigurableApplicationContext;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The friction points of a newcomer's trial of the starter, each on a real Spring Boot application
 * (Spring AI's MCP server over Streamable HTTP), a real MCP client and a real PostgreSQL.
 */
public class StarterFrictionTest {

  /** What the application logs (to the console) while {@code action} runs. */
  public static <T> T logged(StringBuilder log, Supplier<T> action) {
    PrintStream out = System.out;
    ByteArrayOutputStream copy = new ByteArrayOutputStream();
    System.setOut(
        new PrintStream(
            new java.io.OutputStream() {
              @Override
              public void write(int b) {
                out.write(b);
                copy.write(b);
              }

              @Override
              public void write(byte[] b, int off, int len) {
                out.write(b, off, len);
                copy.write(b, off, len);
              }
            },
            true));
    try {
      return action.get();
    } finally {
      System.setOut(out);
      log.append(copy.toString(StandardCharsets.UTF_8));
    }
  }

  private static String text(CallToolResult r) {
    return ((McpSchema.TextContent) r.content().get(0)).text();
  }

  @SuppressWarnings("unchecked")
  private static String errorType(CallToolResult r) {
    Object structured = r.structuredContent();
    if (!(structured instanceof Map<?, ?> m) || !(m.get("error") instanceof Map<?, ?> e)) {
      return null;
    }
    return (String) ((Map<String, Object>) e).get("type");
  }

  private static boolean tableExists(String table) throws Exception {
    TestDatabases.Target pg = TestDatabases.postgres();
    try (Connection c = DriverManager.getConnection(pg.url(), pg.user(), pg.password());
        var rs = c.getMetaData().getTables(null, null, table, null)) {
      return rs.next();
    }
  }

  @Test
  void theClaimsTableIsCreatedAtStartupNotOnTheFirstCallAndTheLogSaysSo() throws Exception {
    String table = "mcpgate_boot_startup_" + System.nanoTime();
    StringBuilder log = new StringBuilder();
    try (ConfigurableApplicationContext app =
        logged(log, () -> SpringBootStarterTest.server("mcpgate.table-name=" + table).run())) {
      assertThat(tableExists(table)).as("created before any call").isTrue();
    }
    assertThat(log.toString()).containsOnlyOnce("created the claims table " + table);
    // a second start finds it: nothing is created, nothing said
    StringBuilder again = new StringBuilder();
    try (ConfigurableApplicationContext app =
        logged(again, () -> SpringBootStarterTest.server("mcpgate.table-name=" + table).run())) {
      assertThat(again.toString()).doesNotContain("created the claims table");
    } finally {
      dropTable(table);
    }
  }

  private static void dropTable(String table) throws Exception {
    TestDatabases.Target pg = TestDatabases.postgres();
    try (Connection c = DriverManager.getConnection(pg.url(), pg.user(), pg.password());
        var st = c.createStatement()) {
      st.execute("DROP TABLE IF EXISTS " + table);
    }
  }

  /** What one failed start logged, and the exception it failed with. */
  private static Throwable failedStart(StringBuilder log, String... properties) {
    Throwable[] thrown = new Throwable[1];
    logged(
        log,
        () -> {
          try {
            SpringBootStarterTest.server(properties).run().close();
          } catch (RuntimeException e) {
            thrown[0] = e;
          }
          return null;
        });
    assertThat(thrown[0]).as("the startup failed").isNotNull();
    return thrown[0];
  }

  @Test
  void aMissingTableStopsTheStartupWithOneFailureAnalysisThatHoldsItsDdl() throws Exception {
    String table = "mcpgate_boot_missing_" + System.nanoTime();
    StringBuilder log = new StringBuilder();
    Throwable e =
        failedStart(log, "mcpgate.create-schema-if-missing=false", "mcpgate.table-name=" + table);
    assertThat(e)
        .hasStackTraceContaining("the claims table " + table + " does not exist")
        .hasStackTraceContaining("CREATE TABLE");
    String logged = log.toString();
    assertThat(logged)
        .contains("APPLICATION FAILED TO START")
        .containsOnlyOnce("APPLICATION FAILED TO START")
        .containsOnlyOnce("CREATE TABLE IF NOT EXISTS " + table)
        .contains("MCP Gate's claims table " + table + " does not exist.");
    assertThat(logged.substring(logged.indexOf("Action:")))
        .contains("CREATE TABLE IF NOT EXISTS " + table)
        .contains("mcpgate.create-schema-if-missing=true");
    assertThat(tableExists(table)).isFalse();
    // and the check can be turned off: the server starts, the first call finds out
    try (ConfigurableApplicationContext app =
        SpringBootStarterTest.server(
                "mcpgate.create-schema-if-missing=false",
                "mcpgate.verify-schema=false",
                "mcpgate.table-name=" + table)
            .run()) {
      assertThat(app.isRunning()).isTrue();
    }
  }

  @Test
  void anOutOfDateTableStopsTheStartupWithTheStatementsThatBringItUpToDate() throws Exception {
    String table = "mcpgate_boot_old_" + System.nanoTime();
    String old =
        dev.mcpgate.jdbc.JdbcDialect.POSTGRESQL
            .ddl(table)
            .replace(table + "_created_idx", table + "_expires_idx")
            .replace("(created_at_ms)", "(expires_at_ms)");
    TestDatabases.Target pg = TestDatabases.postgres();
    try (Connection c = DriverManager.getConnection(pg.url(), pg.user(), pg.password());
        var st = c.createStatement()) {
      for (String statement : old.split(";")) {
        String sql =
            statement.lines().filter(l -> !l.startsWith("--")).reduce("", (a, b) -> a + "\n" + b);
        if (!sql.isBlank()) {
          st.execute(sql);
        }
      }
    }
    try {
      StringBuilder log = new StringBuilder();
      // create-schema-if-missing is on, as in the other tests: it creates, it never alters
      failedStart(log, "mcpgate.table-name=" + table);
      String logged = log.toString();
      assertThat(logged)
          .containsOnlyOnce("APPLICATION FAILED TO START")
          .contains("MCP Gate's claims table " + table + " is out of date")
          .contains(table + "_expires_idx on expires_at_ms");
      assertThat(logged.substring(logged.indexOf("Action:")))
          .containsOnlyOnce("DROP INDEX " + table + "_expires_idx;")
          .doesNotContain("CREATE TABLE");
    } finally {
      dropTable(table);
    }
  }

  @Test
  void everyMeterTheDocsListIsRegistered() throws Exception {
    try (ConfigurableApplicationContext app = SpringBootStarterTest.server().run()) {
      McpSyncClient client = SpringBootStarterTest.client(app, "meters-" + System.nanoTime());
      try {
        Map<String, Object> args =
            Map.of("orderId", "o1", "amountCents", 1, "idempotency_key", "k-meters");
        client.callTool(new CallToolRequest("refund_order", args));
        client.callTool(new CallToolRequest("refund_order", args));
      } finally {
        client.closeGracefully();
      }
      // two attempts with one key at once: the second waits on the first
      IdempotencyGate gate = app.getBean(IdempotencyGate.class);
      CountDownLatch running = new CountDownLatch(1);
      CountDownLatch release = new CountDownLatch(1);
      ExecutorService pool = Executors.newFixedThreadPool(2);
      try {
        String tenant = "wait-" + System.nanoTime();
        Future<?> first =
            pool.submit(
                () ->
                    gate.execute(
                        ToolCall.of(tenant, "refund_order", "k-wait", Map.of()),
                        ResultMapper.utf8(),
                        ctx -> {
                          running.countDown();
                          release.await(10, TimeUnit.SECONDS);
                          return "first";
                        }));
        assertThat(running.await(10, TimeUnit.SECONDS)).isTrue();
        Future<?> second =
            pool.submit(
                () ->
                    gate.execute(
                        ToolCall.of(tenant, "refund_order", "k-wait", Map.of()),
                        ResultMapper.utf8(),
                        ctx -> "second"));
        // the second call's claim found the key in flight: it waits until the first is done
        MeterRegistry claims = app.getBean(MeterRegistry.class);
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (claims
                    .get("mcpgate.store.operations")
                    .tags("operation", "claim", "outcome", "success", "store", "jdbc")
                    .timer()
                    .count()
                < 2
            && System.nanoTime() < until) {
          Thread.sleep(5);
        }
        Thread.sleep(50);
        release.countDown();
        first.get(10, TimeUnit.SECONDS);
        second.get(10, TimeUnit.SECONDS);
      } finally {
        pool.shutdownNow();
      }

      MeterRegistry meters = app.getBean(MeterRegistry.class);
      assertThat(meters.get("mcpgate.calls").counters()).isNotEmpty();
      assertThat(meters.get("mcpgate.attempts.ended").counters()).isNotEmpty();
      assertThat(
              meters
                  .get("mcpgate.store.operations")
                  .tags("operation", "claim", "outcome", "success", "store", "jdbc")
                  .timer()
                  .count())
          .isGreaterThanOrEqualTo(2);
      assertThat(
              meters.get("mcpgate.store.operations").tags("operation", "complete").timer().count())
          .isGreaterThanOrEqualTo(1);
      assertThat(
              meters
                  .get("mcpgate.inflight.wait")
                  .tags("tool", "refund_order", "store", "jdbc")
                  .timer()
                  .count())
          .isGreaterThanOrEqualTo(1);
    }
  }

  @Test
  void noTenantSourceIsAWarningAtStartupAndARateLimitedWarningOnRefusal() {
    StringBuilder log = new StringBuilder();
    ConfigurableApplicationContext app =
        logged(
            log,
            () ->
                SpringBootStarterTest.server(
                        "mcpgate.tenant.header=",
                        "mcpgate.tenant.sources=",
                        "mcpgate.tenant.constant=",
                        "mcpgate.tenant.from-principal=false")
                    .run()); // empty values are no source either
    try {
      assertThat(log)
          .contains("MCP Gate has no tenant source")
          .contains("mcpgate.tenant.header")
          .contains("mcpgate.tenant.constant")
          .contains("mcpgate.tenant.sources");
      McpSyncClient client = SpringBootStarterTest.client(app, "");
      StringBuilder calls = new StringBuilder();
      try {
        List<CallToolResult> results =
            logged(
                calls,
                () -> {
                  List<CallToolResult> r = new ArrayList<>();
                  for (int i = 0; i < 3; i++) {
                    r.add(
                        client.callTool(
                            new CallToolRequest(
                                "refund_order",
                                Map.of(
                                    "orderId",
                                    "o",
                                    "amountCents",
                                    1,
                                    "idempotency_key",
                                    "k-none-" + i))));
                  }
                  return r;
                });
        assertThat(results)
            .allSatisfy(r -> assertThat(errorType(r)).isEqualTo(McpGateErrors.TENANT_UNKNOWN));
      } finally {
        client.closeGracefully();
      }
      String warnings = calls.toString();
      assertThat(warnings)
          .contains("tenant_unknown")
          .contains("mcpgate.tenant.header")
          .contains("mcpgate.tenant.constant");
      assertThat(warnings.split("refused .{1,10} call\\(s\\) to gated tools", -1))
          .as("one warning a minute, not one a call")
          .hasSize(2);
    } finally {
      app.close();
    }
  }

  @Test
  void exactNumbersTellApartWhatADoubleMerges() {
    BigDecimal a = new BigDecimal("9007199254740993.0");
    BigDecimal b = new BigDecimal("9007199254740992.0");
    StringBuilder log = new StringBuilder();
    // the default: Spring AI's mapper reads doubles; the startup says what to set, and a gated
    // call with a decimal is refused rather than hashed from a rounded value
    try (ConfigurableApplicationContext app =
        logged(log, () -> SpringBootStarterTest.server().run())) {
      assertThat(log)
          .contains("take decimal numbers")
          .contains("charge_card")
          .contains("a call with a decimal argument is refused")
          .contains("mcpgate.exact-numbers=true");
      McpSyncClient client = SpringBootStarterTest.client(app, "inexact-" + System.nanoTime());
      try {
        StringBuilder callLog = new StringBuilder();
        CallToolResult first =
            logged(
                callLog,
                () ->
                    client.callTool(
                        new CallToolRequest(
                            "charge_card",
                            Map.of("card", "c1", "amount", a, "idempotency_key", "k-dec"))));
        CallToolResult second =
            client.callTool(
                new CallToolRequest(
                    "charge_card", Map.of("card", "c1", "amount", b, "idempotency_key", "k-dec")));
        // never silently: a decimal the mapper read as a double is refused, naming the fix, the
        // Spring property among them, to the model and in the operator's WARN
        assertThat(errorType(first)).isEqualTo(McpGateErrors.ARGUMENTS_INVALID);
        assertThat(errorType(second)).isEqualTo(McpGateErrors.ARGUMENTS_INVALID);
        assertThat(text(first))
            .contains("ExactNumbers.jsonMapper()")
            .contains("mcpgate.exact-numbers=true");
        assertThat(callLog)
            .contains("refused a call (arguments_invalid)")
            .contains("mcpgate.exact-numbers=true");
      } finally {
        client.closeGracefully();
      }
    }
    StringBuilder exactLog = new StringBuilder();
    try (ConfigurableApplicationContext app =
        logged(exactLog, () -> SpringBootStarterTest.server("mcpgate.exact-numbers=true").run())) {
      assertThat(exactLog)
          .doesNotContain("take decimal numbers")
          .doesNotContain("reads decimals as double");
      McpSyncClient client = SpringBootStarterTest.client(app, "exact-" + System.nanoTime());
      try {
        CallToolResult first =
            client.callTool(
                new CallToolRequest(
                    "charge_card", Map.of("card", "c1", "amount", a, "idempotency_key", "k-dec")));
        CallToolResult second =
            client.callTool(
                new CallToolRequest(
                    "charge_card", Map.of("card", "c1", "amount", b, "idempotency_key", "k-dec")));
        assertThat(text(first)).contains("9007199254740993");
        assertThat(errorType(second)).isEqualTo(McpGateErrors.KEY_CONFLICT);
      } finally {
        client.closeGracefully();
      }
    }
  }

  @Test
  void theJarDescribesEveryPropertyForAutocompletion() throws Exception {
    JsonNode metadata;
    try (InputStream in =
        getClass()
            .getClassLoader()
            .getResourceAsStream("META-INF/spring-configuration-metadata.json")) {
      assertThat(in).as("generated by spring-boot-configuration-processor").isNotNull();
      metadata = JsonMapper.builder().build().readTree(in);
    }
    Map<String, JsonNode> byName = new java.util.HashMap<>();
    metadata.get("properties").forEach(p -> byName.put(p.get("name").asString(), p));
    assertThat(byName)
        .containsKeys(
            "mcpgate.enabled",
            "mcpgate.store",
            "mcpgate.table-name",
            "mcpgate.create-schema-if-missing",
            "mcpgate.verify-schema",
            "mcpgate.exact-numbers",
            "mcpgate.retention",
            "mcpgate.lease",
            "mcpgate.lease-renewal",
            "mcpgate.in-flight-wait",
            "mcpgate.key-sources",
            "mcpgate.failure-mode",
            "mcpgate.require-gated-writes",
            "mcpgate.safe-tools",
            "mcpgate.tenant.from-principal",
            "mcpgate.tenant.header",
            "mcpgate.tenant.constant",
            "mcpgate.tenant.sources",
            "mcpgate.audit.enabled",
            "mcpgate.audit.table-name",
            "mcpgate.purge.enabled",
            "mcpgate.purge.interval",
            "mcpgate.purge.batch-size",
            "mcpgate.redis.url",
            "mcpgate.redis.cluster",
            "mcpgate.redis.key-prefix");
    byName.forEach(
        (name, p) ->
            assertThat(p.path("description").asString(""))
                .as(name)
                .isNotBlank()
                .doesNotContain("{@"));
    assertThat(byName.get("mcpgate.retention").get("defaultValue").asString()).isEqualTo("24h");
  }
}
