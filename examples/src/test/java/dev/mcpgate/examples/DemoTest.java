package dev.mcpgate.examples;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.mcp.TenantResolver;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The demo's own checks, as tests: every write tool of the example server, sent as a retrying
 * client sends it, over real Streamable HTTP, on each store the example supports.
 */
class DemoTest {

  static Demo.Report demo(String jdbcUrl, String dynamoEndpoint) throws Exception {
    return demo(jdbcUrl, dynamoEndpoint, null);
  }

  static Demo.Report demo(String jdbcUrl, String dynamoEndpoint, String redisUrl) throws Exception {
    try (ExampleServer server =
        new ExampleServer(
            new ExampleServer.Config(
                jdbcUrl,
                dynamoEndpoint,
                redisUrl,
                TenantResolver.fromTransportContext("tenant")))) {
      return new Demo(server).run();
    }
  }

  @TempDir Path tmp;

  private String h2() {
    return "jdbc:h2:file:" + tmp.resolve("db-" + UUID.randomUUID()).resolve("db");
  }

  static String env(String name) {
    String value = System.getenv(name);
    if (value == null || value.isBlank()) {
      String message = name + " is not set: this variant of the demo needs that server";
      if ("true".equalsIgnoreCase(System.getenv("MCPGATE_TEST_REQUIRE_ALL"))) {
        Assertions.fail(message + " (MCPGATE_TEST_REQUIRE_ALL=true)");
      }
      Assumptions.abort(message);
    }
    return value;
  }

  private static void assertNothingRanTwice(Demo.Report report) {
    for (Demo.Step step : report.steps()) {
      assertThat(step.ok()).as("%s / %s: %s", step.tool(), step.step(), step).isTrue();
    }
    assertThat(report.ordersAgree())
        .as("stop orders %s vs %s", report.orderA(), report.orderB())
        .isTrue();
    assertThat(report.passed()).isTrue();
  }

  @Test
  void demoOnH2RunsNothingTwiceAndBothStopOrdersAgree() throws Exception {
    Demo.Report report = demo(h2(), null);

    assertNothingRanTwice(report);
    Demo.Step refundRetry =
        report.steps().stream()
            .filter(s -> s.tool().equals("refund_order") && s.step().startsWith("retry"))
            .findFirst()
            .orElseThrow();
    assertThat(refundRetry.executions()).isZero();
    assertThat(refundRetry.outcomes()).isEqualTo("replayed");
    Demo.Step conflict =
        report.steps().stream()
            .filter(s -> s.tool().equals("refund_order") && s.step().startsWith("same key"))
            .findFirst()
            .orElseThrow();
    assertThat(conflict.outcomes()).isEqualTo("idempotency_key_conflict");
    assertThat(report.orderA())
        .containsEntry("ended_at", "2025-06-01T14:05:00Z")
        .containsEntry("summary", "wrote the intro");
    assertThat((List<?>) report.orderA().get("stops")).hasSize(2);
  }

  @Test
  void demoOnPostgresql() throws Exception {
    assertNothingRanTwice(demo(env("MCPGATE_TEST_POSTGRES_URL"), null));
  }

  @Test
  void demoOnMariadb() throws Exception {
    assertNothingRanTwice(demo(env("MCPGATE_TEST_MARIADB_URL"), null));
  }

  @Test
  void demoWithClaimsInDynamodb() throws Exception {
    assertNothingRanTwice(demo(h2(), env("MCPGATE_TEST_DYNAMODB_ENDPOINT")));
  }

  @Test
  void demoWithClaimsInRedis() throws Exception {
    assertNothingRanTwice(demo(h2(), null, env("MCPGATE_TEST_REDIS_URL")));
  }

  @Test
  void theReportSaysPassedOrFailed() throws Exception {
    Demo.Report report = demo(h2(), null);
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    report.print(new PrintStream(out, true, StandardCharsets.UTF_8));

    assertThat(out.toString(StandardCharsets.UTF_8))
        .contains("refund_order")
        .contains("retry after a lost response")
        .contains("PASSED");
    Demo.Step bad = new Demo.Step("refund_order", "first call", 1, 2, 2, "executed", 1, 1);
    assertThat(bad.ok()).isFalse();
    assertThat(new Demo.Report(List.of(bad), report.orderA(), report.orderB()).passed()).isFalse();
  }
}
