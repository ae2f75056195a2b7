package dev.mcpgate.quarkus.deployment;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.mcp.Idempotent;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import io.quarkiverse.mcp.server.Tool;
import io.quarkiverse.mcp.server.ToolArg;
import io.quarkiverse.mcp.server.ToolResponse;
import io.quarkus.test.QuarkusUnitTest;
import java.math.BigDecimal;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A {@code BigDecimal} property of an object argument is made by the MCP server from the double it
 * read the decimal as: the gate hashes it, but two amounts that differ past a double's precision
 * are one intent. The startup names each such place at WARN, and a call shows the limit it names.
 */
class BigDecimalArgumentTest {

  @RegisterExtension
  static final QuarkusUnitTest APP =
      new QuarkusUnitTest()
          .withApplicationRoot(
              jar -> jar.addClasses(ChargeTools.class, Invoice.class, Line.class, TestClient.class))
          .overrideConfigKey("quarkus.devservices.enabled", "false")
          .overrideConfigKey("quarkus.http.test-port", "0")
          .overrideConfigKey("mcpgate.store", "memory")
          .overrideConfigKey("mcpgate.tenant.constant", "demo")
          .setLogRecordPredicate(r -> r.getLevel().intValue() >= Level.WARNING.intValue())
          .assertLogRecords(BigDecimalArgumentTest::namesEachPlace);

  private static final TestClient CLIENT = new TestClient();

  @AfterAll
  static void close() {
    CLIENT.close();
  }

  private static void namesEachPlace(List<LogRecord> records) {
    List<String> lines =
        records.stream()
            .map(r -> String.format(r.getMessage(), r.getParameters()))
            .filter(m -> m.contains("MCP Gate: tool charge:"))
            .toList();
    assertThat(lines)
        .anySatisfy(m -> assertThat(m).contains("the BigDecimal at invoice.total is made from"))
        .anySatisfy(m -> assertThat(m).contains("the BigDecimal at invoice.lines[].price is made"))
        .allSatisfy(m -> assertThat(m).contains("are one intent"))
        .hasSize(2);
  }

  @Test
  void amountsThatDifferPastADoublesPrecisionAreOneIntentAsTheWarningSays() {
    String order = UUID.randomUUID().toString();
    String key = UUID.randomUUID().toString();

    CallToolResult first = charge(order, key, new BigDecimal("0.1"));
    CallToolResult close = charge(order, key, new BigDecimal("0.10000000000000001"));
    CallToolResult other = charge(order, key, new BigDecimal("0.2"));

    assertThat(first.isError()).as("%s", first).isFalse();
    assertThat(close.isError()).as("a replay of the first: %s", close).isFalse();
    assertThat(close.content()).isEqualTo(first.content());
    assertThat(other.isError()).as("%s", other).isTrue();
    assertThat(other.structuredContent().toString()).contains("idempotency_key_conflict");
    assertThat(ChargeTools.runs(order)).isEqualTo(1);
  }

  private static CallToolResult charge(String order, String key, BigDecimal amount) {
    return CLIENT
        .get()
        .callTool(
            new CallToolRequest(
                "charge",
                Map.of(
                    "order_id",
                    order,
                    "invoice",
                    Map.of("number", "inv-1", "total", amount, "lines", List.of()),
                    "idempotency_key",
                    key)));
  }

  /** An invoice whose total is a BigDecimal, and so are its lines' prices. */
  public record Invoice(String number, BigDecimal total, List<Line> lines) {}

  /** An invoice line. */
  public record Line(String sku, BigDecimal price) {}

  /** A tool that charges an amount against an invoice, counting its runs by order. */
  public static class ChargeTools {
    private static final Map<String, AtomicInteger> RUNS = new ConcurrentHashMap<>();

    static int runs(String order) {
      AtomicInteger n = RUNS.get(order);
      return n == null ? 0 : n.get();
    }

    @Tool(annotations = @Tool.Annotations(idempotentHint = true))
    @Idempotent
    ToolResponse charge(
        @ToolArg(name = "order_id") String orderId,
        @ToolArg(name = "invoice") Invoice invoice,
        @ToolArg(name = "idempotency_key", required = false) String idempotencyKey) {
      int run = RUNS.computeIfAbsent(orderId, o -> new AtomicInteger()).incrementAndGet();
      return ToolResponse.success("charged " + invoice.total() + " (run " + run + ")");
    }
  }
}
