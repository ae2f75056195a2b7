package dev.mcpgate.mcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.mcpgate.core.GatePolicy;
import dev.mcpgate.core.IdempotencyGate;
import dev.mcpgate.core.memory.InMemoryIdempotencyStore;
import io.modelcontextprotocol.common.McpTransportContext;
import io.modelcontextprotocol.json.McpJsonDefaults;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Findings of an adversarial review of the typed answers for failures outside the gate's decisions:
 * each test failed on main before its fix (86e7ca6).
 */
class AnswerTruthReviewTest {

  private static GatedTool tool(IdempotencyGate gate) {
    return new GatedTool(
        new TestTools().refundTool(),
        ToolPolicy.defaults(),
        gate,
        TenantResolver.fixed("acme"),
        null,
        new CallToolResultMapper(McpJsonDefaults.getMapper()),
        Auditor.NONE);
  }

  /** A replay whose answer cannot be made (the stored result is null) ran before: not "no". */
  @Test
  void aReplayThatCannotBeMarkedIsNotToldThatNothingRan() {
    AtomicInteger effects = new AtomicInteger();
    try (IdempotencyGate gate =
        IdempotencyGate.builder(InMemoryIdempotencyStore.create()).build()) {
      GatedTool tool = tool(gate);
      Invocation handler =
          new Invocation.Direct(
              r -> {
                effects.incrementAndGet();
                return null;
              });
      tool.call(McpTransportContext.EMPTY, GatedServerContract.refund("k-1", 500), handler);
      CallToolResult retry =
          tool.call(McpTransportContext.EMPTY, GatedServerContract.refund("k-1", 500), handler);

      assertThat(effects).hasValue(1);
      assertThat(GatedServerContract.error(retry))
          .containsEntry("type", McpGateErrors.INTERNAL_ERROR)
          .containsEntry("executed", "yes");
    }
  }

  /** An Error of a hook (not the JVM's) is answered like its exceptions: nothing of it leaks. */
  @Test
  void anErrorOfAnAuthorizerDoesNotReachTheClient() {
    TestTools tools = new TestTools();
    IdempotencyGate gate = IdempotencyGate.builder(InMemoryIdempotencyStore.create()).build();
    Throwable seen;
    CallToolResult[] answer = new CallToolResult[1];
    try (gate;
        McpHarness harness =
            McpHarness.stdio(
                List.of(
                    McpGate.builder(gate)
                        .tenantResolver(TenantResolver.fixed("alice@corp.example"))
                        .authorizer(
                            (tenant, c, r) -> {
                              throw new AssertionError(
                                  "acl provider kms-2026-12 has no entry for " + tenant);
                            })
                        .build()
                        .gate(tools.refundSpec(), ToolPolicy.defaults())))) {
      seen =
          catchThrowable(
              () ->
                  answer[0] =
                      harness.client("acme").callTool(GatedServerContract.refund("k-1", 500)));
    }
    assertThat(tools.refunds).hasValue(0);
    assertThat(seen).isNull();
    assertThat(GatedServerContract.error(answer[0]))
        .containsEntry("type", McpGateErrors.INTERNAL_ERROR)
        .containsEntry("executed", "no");
    assertThat(answer[0].content().toString()).doesNotContain("alice", "kms-2026-12");
  }

  /**
   * A tenant resolver's Error (not the JVM's) is the server's failure, answered as one (nothing
   * ran, a retry is safe), never thrown to the client nor told as the caller's missing tenant.
   */
  @Test
  void anErrorOfTheTenantResolverIsAFixedAnswerThatNothingRan() {
    AtomicInteger runs = new AtomicInteger();
    try (IdempotencyGate gate =
        IdempotencyGate.builder(InMemoryIdempotencyStore.create()).build()) {
      GatedTool tool =
          new GatedTool(
              new TestTools().refundTool(),
              ToolPolicy.defaults(),
              gate,
              context -> {
                throw new AssertionError("directory has no entry for alice (test)");
              },
              null,
              new CallToolResultMapper(McpJsonDefaults.getMapper()),
              Auditor.NONE);
      CallToolResult answer =
          tool.call(
              McpTransportContext.EMPTY,
              GatedServerContract.refund("k-1", 500),
              new Invocation.Direct(
                  r -> {
                    runs.incrementAndGet();
                    return CallToolResult.builder().addTextContent("ok").build();
                  }));

      assertThat(GatedServerContract.error(answer))
          .containsEntry("type", McpGateErrors.INTERNAL_ERROR)
          .containsEntry("executed", "no")
          .containsEntry("retry_with_same_key", true);
      assertThat(answer.toString()).doesNotContain("alice");
    }
    assertThat(runs).hasValue(0);
  }

  /** A double in an argument the hash leaves out cannot make two calls hash alike. */
  @Test
  void aDoubleInAnIgnoredArgumentDoesNotRefuseTheCall() {
    AtomicInteger runs = new AtomicInteger();
    try (IdempotencyGate gate =
        IdempotencyGate.builder(InMemoryIdempotencyStore.create())
            .policy(GatePolicy.builder().ignoredArguments(Set.of("client_sent_at")).build())
            .build()) {
      Map<String, Object> args =
          new LinkedHashMap<>(
              Map.of(
                  "order_id",
                  "ord_9f2",
                  "amount_cents",
                  500,
                  "idempotency_key",
                  "k-1",
                  "client_sent_at",
                  1733094000.123));
      tool(gate)
          .call(
              McpTransportContext.EMPTY,
              new CallToolRequest("refund_order", args),
              new Invocation.Direct(
                  r -> {
                    runs.incrementAndGet();
                    return CallToolResult.builder().addTextContent("ok").build();
                  }));
    }
    assertThat(runs).hasValue(1);
  }
}
