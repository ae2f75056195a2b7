package dev.mcpgate.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.core.ClaimId;
import dev.mcpgate.core.GatePolicy;
import dev.mcpgate.core.IdempotencyGate;
import dev.mcpgate.core.LeaseToken;
import dev.mcpgate.core.OutcomeUnknownException;
import dev.mcpgate.core.audit.AuditDecision;
import dev.mcpgate.core.audit.AuditRecord;
import dev.mcpgate.core.audit.Redaction;
import dev.mcpgate.core.memory.InMemoryIdempotencyStore;
import dev.mcpgate.core.spi.ClaimState;
import dev.mcpgate.core.spi.ForwardingIdempotencyStore;
import io.modelcontextprotocol.common.McpTransportContext;
import io.modelcontextprotocol.json.McpJsonDefaults;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A reviewer's case at the adapter (fixed): a handler says its outcome is unknown, the store
 * refuses the first fence (a blip) and the gate keeps it to write a renewal period later. The
 * adapter used to read the row at once, find it IN_PROGRESS by this attempt, conclude the key was
 * released, rethrow the handler's exception and audit RELEASED; it now asks the gate.
 */
class LateFenceTruthTest {
  private static final ClaimId ID = new ClaimId("constant:acme", "refund_order", "k-1");

  /** The in-memory store; the first mark-unknown fails, as a connection blip would. */
  private static final class FirstFenceFails extends ForwardingIdempotencyStore {
    final AtomicInteger fences = new AtomicInteger();

    FirstFenceFails() {
      super(InMemoryIdempotencyStore.create());
    }

    @Override
    public boolean markUnknown(ClaimId id, LeaseToken token, Duration fence) {
      if (fences.incrementAndGet() == 1) {
        throw new IllegalStateException("connection reset during mark-unknown (test)");
      }
      return super.markUnknown(id, token, fence);
    }
  }

  @Test
  void aHandlerWhoseOutcomeIsUnknownIsToldUnknownWhileItsFenceIsWrittenLate() throws Exception {
    FirstFenceFails store = new FirstFenceFails();
    List<AuditRecord> audit = new CopyOnWriteArrayList<>();
    try (IdempotencyGate gate =
        IdempotencyGate.builder(store)
            .policy(
                GatePolicy.builder()
                    .lease(Duration.ofMillis(600))
                    .leaseRenewal(Duration.ofMillis(150))
                    .inFlightWait(Duration.ZERO)
                    .build())
            .build()) {
      GatedTool tool =
          new GatedTool(
              new TestTools().refundTool(),
              ToolPolicy.defaults(),
              gate,
              TenantResolver.fixed("acme"),
              null,
              new CallToolResultMapper(McpJsonDefaults.getMapper()),
              new Auditor(audit::add, Redaction.none(), null));

      CallToolResult result = null;
      RuntimeException thrown = null;
      try {
        result =
            tool.call(
                McpTransportContext.EMPTY,
                GatedServerContract.refund("k-1", 500),
                new Invocation.Direct(
                    request -> {
                      throw new OutcomeUnknownException("the payment provider timed out");
                    }));
      } catch (RuntimeException e) {
        thrown = e;
      }

      // the fence lands one renewal period later: the key was never released
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
      while (System.nanoTime() < deadline
          && store.find(ID).map(r -> r.state() != ClaimState.UNKNOWN).orElse(true)) {
        Thread.sleep(20);
      }
      assertThat(store.find(ID).orElseThrow().state()).isEqualTo(ClaimState.UNKNOWN);

      assertThat(audit)
          .as("the audit says what the gate did with the key")
          .noneSatisfy(r -> assertThat(r.decision()).isEqualTo(AuditDecision.RELEASED));
      assertThat(thrown)
          .as("the handler's exception is passed on as if the key were free")
          .isNull();
      assertThat(GatedServerContract.error(result))
          .containsEntry("type", McpGateErrors.OUTCOME_UNKNOWN)
          .containsEntry("executed", "unknown");
    }
  }
}
