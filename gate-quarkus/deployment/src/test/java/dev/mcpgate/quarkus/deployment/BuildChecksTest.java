package dev.mcpgate.quarkus.deployment;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.mcp.Idempotent;
import io.quarkiverse.mcp.server.Tool;
import io.quarkiverse.mcp.server.ToolArg;
import io.quarkiverse.mcp.server.ToolResponse;
import io.quarkus.test.QuarkusUnitTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** A gated tool that cannot be gated as declared fails the build, which names each problem. */
class BuildChecksTest {

  @RegisterExtension
  static final QuarkusUnitTest APP =
      new QuarkusUnitTest()
          .withApplicationRoot(jar -> jar.addClasses(BadTools.class, EventLoopTools.class))
          .overrideConfigKey("quarkus.devservices.enabled", "false")
          .overrideConfigKey("mcpgate.store", "memory")
          .assertException(
              e ->
                  assertThat(e)
                      .isInstanceOf(IllegalStateException.class)
                      .hasMessageContaining("MCP Gate cannot gate these tools as declared")
                      .hasMessageContaining(
                          "tool transfer (dev.mcpgate.quarkus.deployment.BuildChecksTest$BadTools"
                              + "#transfer): its key argument idempotency_key is not one of its"
                              + " arguments [account, amount_cents]")
                      .hasMessageContaining(
                          "tool close_account (dev.mcpgate.quarkus.deployment.BuildChecksTest"
                              + "$BadTools#close): a gated tool returns ToolResponse")
                      .hasMessageContaining(
                          "tool close_account (dev.mcpgate.quarkus.deployment.BuildChecksTest"
                              + "$BadTools#close): its natural key names acount, which is not one"
                              + " of its arguments [account]")
                      .hasMessageContaining(
                          "tool close_account (dev.mcpgate.quarkus.deployment.BuildChecksTest"
                              + "$BadTools#close): a gated tool tells clients so")
                      .hasMessageContaining(
                          "tool ping (dev.mcpgate.quarkus.deployment.BuildChecksTest$BadTools"
                              + "#ping): a gated tool waits on its store")
                      .hasMessageContaining(
                          "tool described (dev.mcpgate.quarkus.deployment.BuildChecksTest"
                              + "$BadTools#described): @Idempotent(keyDescription) is not used"
                              + " here")
                      .hasMessageContaining(
                          "tool refund (dev.mcpgate.quarkus.deployment.BuildChecksTest$BadTools"
                              + "#refund): @Idempotent(tool = \"refund_order\") names another"
                              + " tool than its @Tool")
                      .hasMessageContaining(
                          "tool remind (dev.mcpgate.quarkus.deployment.BuildChecksTest"
                              + "$EventLoopTools#remind): a gated tool waits on its store")
                      // @NonBlocking on ping, a method of the same class, is not transfer's
                      .satisfies(
                          f ->
                              assertThat(f.getMessage())
                                  .doesNotContain("BadTools#transfer): a gated tool waits")
                                  // the HTTP transport is here: its header reaches the gate
                                  .doesNotContain("BadTools#byHeader)")));

  @Test
  void theBuildFails() {
    // the assertion is the extension's: the build must fail with the messages above
  }

  /** A class whose tools all run on the event loop. */
  @io.smallrye.common.annotation.NonBlocking
  public static class EventLoopTools {
    @Tool(annotations = @Tool.Annotations(idempotentHint = true))
    @Idempotent
    ToolResponse remind(
        String account, @ToolArg(name = "idempotency_key", required = false) String key) {
      return ToolResponse.success("sent");
    }
  }

  /** Tools that cannot be gated as declared. */
  public static class BadTools {
    @Tool(annotations = @Tool.Annotations(idempotentHint = true))
    @Idempotent
    ToolResponse transfer(String account, @ToolArg(name = "amount_cents") long amountCents) {
      return ToolResponse.success("moved");
    }

    @Tool(annotations = @Tool.Annotations(idempotentHint = true))
    @Idempotent(keySources = dev.mcpgate.mcp.KeySource.META)
    @io.smallrye.common.annotation.NonBlocking
    ToolResponse ping() {
      return ToolResponse.success("pong");
    }

    @Tool(name = "by_header", annotations = @Tool.Annotations(idempotentHint = true))
    @Idempotent(keySources = dev.mcpgate.mcp.KeySource.HEADER)
    ToolResponse byHeader(String account) {
      return ToolResponse.success("done");
    }

    @Tool(annotations = @Tool.Annotations(idempotentHint = true))
    @Idempotent(keyDescription = "the order's operation id")
    ToolResponse described(
        String account, @ToolArg(name = "idempotency_key", required = false) String key) {
      return ToolResponse.success("done");
    }

    @Tool(annotations = @Tool.Annotations(idempotentHint = true))
    @Idempotent(tool = "refund_order")
    ToolResponse refund(
        String account, @ToolArg(name = "idempotency_key", required = false) String key) {
      return ToolResponse.success("refunded");
    }

    @Tool(name = "close_account")
    @Idempotent(naturalKey = "acount", keySources = dev.mcpgate.mcp.KeySource.NATURAL)
    String close(String account) {
      return "closed";
    }
  }
}
