package dev.mcpgate.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.core.ClaimId;
import dev.mcpgate.core.IdempotencyGate;
import dev.mcpgate.core.Reconciler;
import dev.mcpgate.core.audit.AuditDecision;
import dev.mcpgate.core.audit.AuditRecord;
import dev.mcpgate.core.memory.InMemoryIdempotencyStore;
import io.modelcontextprotocol.common.McpTransportContext;
import io.modelcontextprotocol.server.McpStatelessServerFeatures;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * A result an operator settled, replayed through a gated tool: the model is told when it was
 * settled, not a first execution's time (the takeover's claim), and the audit record says so.
 */
class SettledReplayTest {

  @Test
  void aSettledResultIsReplayedWithItsSettlementTimeAndAuditedAsSettled() {
    AtomicReference<Instant> now = new AtomicReference<>(Instant.parse("2030-01-01T00:00:00Z"));
    List<AuditRecord> records = new CopyOnWriteArrayList<>();
    try (IdempotencyGate core =
        IdempotencyGate.builder(InMemoryIdempotencyStore.create(now::get))
            .clock(now::get)
            .build()) {
      McpGate gate =
          McpGate.builder(core)
              .tenantResolver(TenantResolver.fromTransportContext("tenant"))
              .audit(records::add)
              .build();
      McpStatelessServerFeatures.SyncToolSpecification spec =
          gate.gate(
              new McpStatelessServerFeatures.SyncToolSpecification(
                  new TestTools().refundTool(),
                  (ctx, req) -> {
                    // the handler is paused past its lease, and an operator who saw the refund
                    // go through settles the key meanwhile
                    ClaimId id = GatedClaim.of(req).orElseThrow().id();
                    now.set(now.get().plus(Duration.ofSeconds(6)));
                    byte[] settled =
                        "{\"content\":[{\"type\":\"text\",\"text\":\"refunded (settled)\"}]}"
                            .getBytes(StandardCharsets.UTF_8);
                    assertThat(core.resolveUnknown(id, Reconciler.Verdict.happened(settled)))
                        .isTrue();
                    return CallToolResult.builder().addTextContent("refunded").build();
                  }),
              ToolPolicy.defaults());

      call(spec);
      Instant settledAt = now.get();
      now.set(settledAt.plus(Duration.ofSeconds(30)));
      CallToolResult replay = call(spec);

      assertThat(replay.content().get(0).toString()).contains("refunded (settled)");
      assertThat(replay.meta())
          .containsEntry(McpGateErrors.META_REPLAYED, true)
          .containsEntry(McpGateErrors.META_SETTLED_AT, settledAt.toString())
          .doesNotContainKey(McpGateErrors.META_FIRST_EXECUTED_AT);
      AuditRecord replayed = records.get(records.size() - 1);
      assertThat(replayed.decision()).isEqualTo(AuditDecision.REPLAYED);
      assertThat(replayed.attempt()).isEqualTo(2);
      assertThat(replayed.reason())
          .contains("stored under an operator's settlement", "ran in an earlier one");
    }
  }

  private static CallToolResult call(McpStatelessServerFeatures.SyncToolSpecification spec) {
    return spec.callHandler()
        .apply(
            McpTransportContext.create(Map.of("tenant", "acme")),
            new CallToolRequest(
                "refund_order",
                Map.of("order_id", "ord_9f2", "amount_cents", 500, "idempotency_key", "k-s")));
  }
}
