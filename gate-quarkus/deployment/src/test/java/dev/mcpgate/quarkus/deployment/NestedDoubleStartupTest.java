package dev.mcpgate.quarkus.deployment;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.mcp.Idempotent;
import io.quarkiverse.mcp.server.Tool;
import io.quarkiverse.mcp.server.ToolArg;
import io.quarkiverse.mcp.server.ToolResponse;
import io.quarkus.test.QuarkusUnitTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A gated tool whose object argument has a {@code double} property stops the startup: the
 * interceptor writes the object as JSON, the property as a double, which the gate refuses, so every
 * call that gives the object would be refused, whole numbers too.
 */
class NestedDoubleStartupTest {

  @RegisterExtension
  static final QuarkusUnitTest APP =
      new QuarkusUnitTest()
          .withApplicationRoot(jar -> jar.addClasses(OrderTools.class, Order.class, Line.class))
          .overrideConfigKey("quarkus.devservices.enabled", "false")
          .overrideConfigKey("mcpgate.store", "memory")
          .overrideConfigKey("mcpgate.tenant.constant", "demo")
          .assertException(
              e ->
                  assertThat(e)
                      .hasStackTraceContaining(
                          "MCP Gate cannot gate tool place (dev.mcpgate.quarkus.deployment"
                              + ".NestedDoubleStartupTest$OrderTools#place): its argument order"
                              + " holds a double or float at order.line.price")
                      .hasStackTraceContaining("every call that gives order would be refused")
                      .hasStackTraceContaining("mcpgate.accept-inexact-numbers=true"));

  @Test
  void theStartupFails() {
    // the assertion is the extension's: the application must not start
  }

  /** An order line whose price is a double. */
  public record Line(String sku, double price) {}

  /** An order of one line. */
  public record Order(String customer, Line line) {}

  /** A tool that takes an order. */
  public static class OrderTools {
    @Tool(annotations = @Tool.Annotations(idempotentHint = true))
    @Idempotent
    ToolResponse place(
        Order order, @ToolArg(name = "idempotency_key", required = false) String idempotencyKey) {
      return ToolResponse.success("placed");
    }
  }
}
