package dev.mcpgate.quarkus.deployment;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.mcp.Idempotent;
import io.quarkiverse.mcp.server.Tool;
import io.quarkiverse.mcp.server.ToolArg;
import io.quarkiverse.mcp.server.ToolResponse;
import io.quarkus.test.QuarkusUnitTest;
import java.util.List;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A double or float that a call may leave out (a boxed argument, the elements of a list, a boxed
 * property) starts the application and is named at startup at WARN: each call that gives one is
 * refused. A primitive inside a record among the list's elements is named the same way.
 */
class InexactNumberWarningTest {

  @RegisterExtension
  static final QuarkusUnitTest APP =
      new QuarkusUnitTest()
          .withApplicationRoot(jar -> jar.addClasses(BasketTools.class, Basket.class, Item.class))
          .overrideConfigKey("quarkus.devservices.enabled", "false")
          .overrideConfigKey("mcpgate.store", "memory")
          .overrideConfigKey("mcpgate.tenant.constant", "demo")
          .setLogRecordPredicate(r -> r.getLevel().intValue() >= Level.WARNING.intValue())
          .assertLogRecords(InexactNumberWarningTest::namesEachPlace);

  private static void namesEachPlace(List<LogRecord> records) {
    List<String> lines =
        records.stream()
            .map(r -> String.format(r.getMessage(), r.getParameters()))
            .filter(m -> m.contains("MCP Gate: tool fill:"))
            .toList();
    assertThat(lines)
        .anySatisfy(m -> assertThat(m).contains("a call that gives tip (a double or float)"))
        .anySatisfy(m -> assertThat(m).contains("a double or float at basket.items[].weight"))
        .anySatisfy(m -> assertThat(m).contains("a double or float at basket.discount"))
        .allSatisfy(m -> assertThat(m).contains("is refused (arguments_invalid)"))
        .hasSize(3);
  }

  @Test
  void theApplicationStarts() {
    // the log assertion is the extension's, after the application stops
  }

  /** An item whose weight is a primitive double: present whenever an item is. */
  public record Item(String sku, double weight) {}

  /** A basket: a list of items and a boxed discount. */
  public record Basket(List<Item> items, Double discount, long cents) {}

  /** A tool that takes a basket and a tip. */
  public static class BasketTools {
    @Tool(annotations = @Tool.Annotations(idempotentHint = true))
    @Idempotent
    ToolResponse fill(
        Basket basket,
        Double tip,
        @ToolArg(name = "idempotency_key", required = false) String idempotencyKey) {
      return ToolResponse.success("filled");
    }
  }
}
