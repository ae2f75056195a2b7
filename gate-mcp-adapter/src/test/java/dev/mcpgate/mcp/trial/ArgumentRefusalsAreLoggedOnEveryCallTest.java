package dev.mcpgate.mcp.trial;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.mcpgate.core.IdempotencyGate;
import dev.mcpgate.core.memory.InMemoryIdempotencyStore;
import dev.mcpgate.mcp.McpGate;
import dev.mcpgate.mcp.TenantResolver;
import dev.mcpgate.mcp.ToolPolicy;
import io.modelcontextprotocol.common.McpTransportContext;
import io.modelcontextprotocol.json.McpJsonDefaults;
import io.modelcontextprotocol.server.McpStatelessServerFeatures;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.lang.reflect.Field;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * docs/security.md, threat table ("a client that makes the server log on every call") and issue 34
 * 6d: "the adapter's per-call lines ... go through RateLimitedLog, at most one a minute per cause
 * with a count".
 *
 * <p>Expected: a caller who sends an argument nested past 64 levels on every call (refused {@code
 * arguments_invalid}, its own mistake, nothing run) makes at most one log line a minute. What
 * happens: GatedTool.failed logs every gate failure it answers, ARGUMENTS_INVALID included, with
 * LOG.warn directly, not through RateLimitedLog, and with the exception's stack trace: 50 calls, 50
 * WARN lines with 50 stack traces.
 *
 * <p>The adapter's test resources turn the McpGate logger off; this test sets slf4j-simple's logger
 * to WARN for its calls (and back), and is skipped if the binding is another.
 */
class ArgumentRefusalsAreLoggedOnEveryCallTest {
  private static final int WARN = 30; // slf4j-simple's LOG_LEVEL_WARN

  @Test
  void aCallerCannotWriteAWarnLineOnEveryCall() throws Exception {
    Logger logger = LoggerFactory.getLogger(McpGate.class);
    assumeTrue(
        logger.getClass().getName().equals("org.slf4j.simple.SimpleLogger"),
        "slf4j-simple is the binding");
    Field level = logger.getClass().getDeclaredField("currentLogLevel");
    level.setAccessible(true);
    int before = level.getInt(logger);
    level.setInt(logger, WARN);
    McpSchema.Tool refund =
        McpSchema.Tool.builder()
            .name("refund")
            .description("Refund an order.")
            .inputSchema(McpJsonDefaults.getMapper(), "{\"type\":\"object\"}")
            .build();
    IdempotencyGate gate = IdempotencyGate.builder(InMemoryIdempotencyStore.create()).build();
    var gated =
        McpGate.builder(gate)
            .tenantResolver(TenantResolver.fixed("acme"))
            .build()
            .gate(
                new McpStatelessServerFeatures.SyncToolSpecification(
                    refund,
                    (context, request) ->
                        CallToolResult.builder().addTextContent("refunded").build()),
                ToolPolicy.defaults());
    Object deep = "v";
    for (int i = 0; i < 70; i++) {
      deep = List.of(deep);
    }
    PrintStream err = System.err;
    ByteArrayOutputStream captured = new ByteArrayOutputStream();
    System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
    try {
      for (int i = 0; i < 50; i++) {
        CallToolResult answer =
            gated
                .callHandler()
                .apply(
                    McpTransportContext.EMPTY,
                    new CallToolRequest("refund", Map.of("idempotency_key", "k" + i, "x", deep)));
        assertThat(answer.structuredContent().toString()).contains("arguments_invalid");
      }
    } finally {
      System.setErr(err);
      level.setInt(logger, before);
      gate.close();
    }

    long warnLines =
        captured
            .toString(StandardCharsets.UTF_8)
            .lines()
            .filter(line -> line.contains("WARN") && line.contains("tool refund"))
            .count();
    assertThat(warnLines)
        .as("WARN lines for 50 refused calls of one caller")
        .isLessThanOrEqualTo(1);
  }
}
