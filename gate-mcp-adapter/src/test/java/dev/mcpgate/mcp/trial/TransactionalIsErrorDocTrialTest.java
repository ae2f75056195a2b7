package dev.mcpgate.mcp.trial;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.mcpgate.core.GatePolicy;
import dev.mcpgate.core.IdempotencyGate;
import dev.mcpgate.core.memory.InMemoryIdempotencyStore;
import dev.mcpgate.mcp.McpGate;
import dev.mcpgate.mcp.McpGateErrors;
import dev.mcpgate.mcp.TenantResolver;
import dev.mcpgate.mcp.ToolPolicy;
import io.modelcontextprotocol.server.McpServerFeatures.SyncToolSpecification;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * docs/mcp-adapter.md, "A tool whose writes commit with its stored result": a handler that throws
 * rolls back and releases; one that returns an {@code isError} result has its writes committed and
 * the claim released in the same transaction, or the result stored with {@code FailureMode.STORE}.
 */
class TransactionalIsErrorDocTrialTest {
  private final InMemoryIdempotencyStore store = InMemoryIdempotencyStore.create();
  private final TrialUnitOfWork unit = new TrialUnitOfWork(store);
  private final AtomicInteger runs = new AtomicInteger();
  private final McpGate mcpGate =
      McpGate.builder(IdempotencyGate.builder(store).build())
          .tenantResolver(TenantResolver.fixed("tests"))
          .build();

  private SyncToolSpecification stop(ToolPolicy policy, boolean throwing) {
    return mcpGate.gateTransactional(
        McpSchema.Tool.builder("stop_session", Map.of("type", "object"))
            .description("Stop a session.")
            .build(),
        policy,
        unit,
        (exchange, request, scope, writes) -> {
          int n = runs.incrementAndGet();
          unit.write(writes, "audit row " + n);
          if (throwing) {
            throw new IllegalStateException("session service down (test)");
          }
          return CallToolResult.builder().addTextContent("already stopped").isError(true).build();
        });
  }

  private static CallToolRequest call() {
    return new CallToolRequest("stop_session", Map.of("session", "s1", "idempotency_key", "k"));
  }

  @Test
  void anIsErrorResultCommitsItsWritesAndReleasesTheKey() {
    SyncToolSpecification gated = stop(ToolPolicy.defaults(), false);

    gated.callHandler().apply(null, call());
    CallToolResult retry = gated.callHandler().apply(null, call());

    assertThat(unit.committed).containsExactly("audit row 1", "audit row 2");
    assertThat(runs).hasValue(2);
    assertThat(retry.meta()).isNull();
  }

  @Test
  void withFailureModeStoreItIsReplayed() {
    SyncToolSpecification gated =
        stop(ToolPolicy.builder().failureMode(GatePolicy.FailureMode.STORE).build(), false);

    gated.callHandler().apply(null, call());
    CallToolResult retry = gated.callHandler().apply(null, call());

    assertThat(unit.committed).containsExactly("audit row 1");
    assertThat(runs).hasValue(1);
    assertThat(retry.isError()).isTrue();
    assertThat(retry.meta()).containsEntry(McpGateErrors.META_REPLAYED, true);
  }

  @Test
  void aHandlerThatThrowsRollsBackAndReleases() {
    assertThatThrownBy(() -> stop(ToolPolicy.defaults(), true).callHandler().apply(null, call()))
        .hasMessageContaining("session service down");
    stop(ToolPolicy.defaults(), false).callHandler().apply(null, call());

    assertThat(unit.committed).containsExactly("audit row 2");
    assertThat(runs).hasValue(2);
  }
}
