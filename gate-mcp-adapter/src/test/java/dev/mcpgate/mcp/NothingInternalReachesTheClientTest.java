package dev.mcpgate.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.core.GatePolicy;
import dev.mcpgate.core.IdempotencyGate;
import dev.mcpgate.core.OutcomeUnknownException;
import dev.mcpgate.core.Reconciler;
import dev.mcpgate.core.codec.AesGcmResultCodec;
import dev.mcpgate.core.memory.InMemoryIdempotencyStore;
import io.modelcontextprotocol.server.McpServerFeatures;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.Test;

/**
 * Each unexpected failure made to happen for real (a codec key dropped, a gate closed, a
 * reconciler, an authorizer and a tenant resolver that throw), over a real MCP transport: the
 * client reads one of our typed answers, which says what is known of the effect, and none of the
 * operator's details (the tenant, the key, a digest, key ids, the failure's own message).
 */
class NothingInternalReachesTheClientTest {
  private static final String TENANT = "alice@corp.example";
  private static final String KEY = "k-rotated-7";
  private static final List<String> SECRETS =
      List.of("alice", "corp.example", KEY, "kms-2026-12", "kms-2027-06", "h1:", "(test)");

  private final InMemoryIdempotencyStore store = InMemoryIdempotencyStore.create();
  private final TestTools tools = new TestTools();

  private static AesGcmResultCodec codec(String id, int fill) {
    byte[] key = new byte[32];
    Arrays.fill(key, (byte) fill);
    return AesGcmResultCodec.builder().currentKey(id, new SecretKeySpec(key, "AES")).build();
  }

  /** One call over stdio, to a gate built by {@code gate} and served as {@code serve} says. */
  private CallToolResult call(
      IdempotencyGate gate,
      UnaryOperator<McpGate.Builder> serve,
      McpServerFeatures.SyncToolSpecification spec) {
    try (gate;
        McpHarness harness =
            McpHarness.stdio(
                List.of(
                    serve
                        .apply(McpGate.builder(gate).tenantResolver(TenantResolver.fixed(TENANT)))
                        .build()
                        .gate(spec, ToolPolicy.defaults())))) {
      return harness.client("acme").callTool(GatedServerContract.refund(KEY, 500));
    }
  }

  private static Map<String, Object> error(CallToolResult result) {
    assertThat(result.isError()).isTrue();
    @SuppressWarnings("unchecked")
    Map<String, Object> error =
        (Map<String, Object>) ((Map<String, Object>) result.structuredContent()).get("error");
    String text = result.content().toString() + result.structuredContent();
    assertThat(text).doesNotContain(SECRETS);
    return error;
  }

  @Test
  void aResultTheCodecCannotReadIsATypedAnswerThatSaysItRan() {
    CallToolResult first =
        call(
            IdempotencyGate.builder(store).codec(codec("kms-2026-12", 1)).build(),
            b -> b,
            tools.refundSpec());
    assertThat(first.isError()).isNotEqualTo(Boolean.TRUE);

    CallToolResult retry =
        call(
            IdempotencyGate.builder(store).codec(codec("kms-2027-06", 2)).build(),
            b -> b,
            tools.refundSpec());

    assertThat(tools.refunds).as("the retry ran nothing").hasValue(1);
    assertThat(error(retry))
        .containsEntry("type", McpGateErrors.OUTCOME_UNKNOWN)
        .containsEntry("executed", "yes")
        .containsEntry("retry_with_same_key", false);
  }

  @Test
  void aClosedGateIsAFixedAnswerThatNothingRan() {
    IdempotencyGate gate = IdempotencyGate.builder(store).build();
    gate.close();

    assertThat(error(call(gate, b -> b, tools.refundSpec())))
        .containsEntry("type", McpGateErrors.STORE_UNAVAILABLE)
        .containsEntry("executed", "no")
        .containsEntry("retry_with_same_key", true);
    assertThat(tools.refunds).hasValue(0);
  }

  @Test
  void anAuthorizerOrATenantResolverThatThrowsIsAFixedAnswerThatNothingRan() {
    CallToolResult refused =
        call(
            IdempotencyGate.builder(store).build(),
            b ->
                b.authorizer(
                    (tenant, context, request) -> {
                      throw new IllegalStateException(
                          "policy service down for " + tenant + " (test)");
                    }),
            tools.refundSpec());
    assertThat(error(refused))
        .containsEntry("type", McpGateErrors.INTERNAL_ERROR)
        .containsEntry("executed", "no");

    CallToolResult noTenant =
        call(
            IdempotencyGate.builder(store).build(),
            b ->
                b.tenantResolver(
                    context -> {
                      throw new IllegalStateException("directory down for alice (test)");
                    }),
            tools.refundSpec());
    assertThat(error(noTenant))
        .as("the server's resolver failed: not the caller's to fix, and a retry may get past it")
        .containsEntry("type", McpGateErrors.INTERNAL_ERROR)
        .containsEntry("executed", "no")
        .containsEntry("retry_with_same_key", true);
    assertThat(noTenant.toString()).doesNotContain("directory down");
    assertThat(tools.refunds).hasValue(0);
  }

  @Test
  void aReconcilerThatThrowsLeavesTheTypedRefusal() {
    AtomicInteger runs = new AtomicInteger();
    Reconciler broken =
        (id, downstreamKey) -> {
          throw new IllegalStateException("ledger down for " + id + " (test)");
        };
    GatePolicy policy = GatePolicy.builder().reconciler(broken).inFlightWait(Duration.ZERO).build();
    McpServerFeatures.SyncToolSpecification unknown =
        new McpServerFeatures.SyncToolSpecification(
            tools.refundTool(),
            (exchange, request) -> {
              runs.incrementAndGet();
              throw new OutcomeUnknownException("the bank timed out for alice (test)");
            });

    CallToolResult first =
        call(IdempotencyGate.builder(store).policy(policy).build(), b -> b, unknown);
    CallToolResult retry =
        call(IdempotencyGate.builder(store).policy(policy).build(), b -> b, unknown);

    assertThat(error(first)).containsEntry("executed", "unknown");
    assertThat(error(retry))
        .containsEntry("type", McpGateErrors.OUTCOME_UNKNOWN)
        .containsEntry("executed", "unknown");
    assertThat(runs).as("the retry ran nothing").hasValue(1);
  }
}
