package dev.mcpgate.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.core.IdempotencyGate;
import dev.mcpgate.core.memory.InMemoryIdempotencyStore;
import io.modelcontextprotocol.common.McpTransportContext;
import io.modelcontextprotocol.json.McpJsonDefaults;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;

/**
 * A client that sends call after call the server cannot place (an invalid tenant, an authorizer
 * that throws) makes the operator's log one line a minute per cause, not one per call.
 */
class GatedToolLogTest {
  private final List<String> lines = new ArrayList<>();
  private final Logger recorder =
      (Logger)
          Proxy.newProxyInstance(
              Logger.class.getClassLoader(),
              new Class<?>[] {Logger.class},
              (proxy, method, args) -> {
                if (method.getName().startsWith("is")) {
                  return true;
                }
                if (method.getName().equals("error") || method.getName().equals("warn")) {
                  lines.add(String.valueOf(args[0]));
                }
                return null;
              });
  private final AtomicLong now = new AtomicLong();

  private GatedTool tool(TenantResolver tenants, CallAuthorizer authorizer) {
    GatedTool tool =
        new GatedTool(
            new TestTools().refundTool(),
            ToolPolicy.defaults(),
            IdempotencyGate.builder(InMemoryIdempotencyStore.create()).build(),
            tenants,
            authorizer,
            new CallToolResultMapper(McpJsonDefaults.getMapper()),
            Auditor.NONE);
    tool.limited = new RateLimitedLog(recorder, Duration.ofMinutes(1), now::get);
    return tool;
  }

  private static CallToolResult call(GatedTool tool) {
    return tool.call(
        McpTransportContext.EMPTY,
        GatedServerContract.refund("k-1", 500),
        new Invocation.Direct(r -> CallToolResult.builder().addTextContent("ran").build()));
  }

  @Test
  void anInvalidTenantIsLoggedOnceAMinuteWithTheCountOfTheRest() {
    GatedTool tool = tool(context -> "bad\u0000tenant", null);

    for (int i = 0; i < 5; i++) {
      assertThat(call(tool).isError()).isTrue();
    }
    assertThat(lines).hasSize(1);
    now.addAndGet(Duration.ofSeconds(61).toNanos());
    call(tool);

    assertThat(lines).hasSize(2);
    assertThat(lines.get(1)).contains("more like it");
  }

  @Test
  void aHookThatThrowsOnEveryCallIsLoggedOnceAMinute() {
    GatedTool tool =
        tool(
            context -> "constant:acme",
            (tenant, context, request) -> {
              throw new IllegalStateException("policy service down (test)");
            });

    for (int i = 0; i < 5; i++) {
      call(tool);
    }

    assertThat(lines).hasSize(1);
  }
}
