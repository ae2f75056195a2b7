package dev.mcpgate.mcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.mcpgate.core.ActionFailedException;
import dev.mcpgate.core.ClaimId;
import dev.mcpgate.core.GatePolicy;
import dev.mcpgate.core.IdempotencyGate;
import dev.mcpgate.core.OutcomeUnknownException;
import dev.mcpgate.core.Reconciler;
import dev.mcpgate.core.spi.ClaimState;
import io.modelcontextprotocol.common.McpTransportContext;
import io.modelcontextprotocol.json.McpJsonDefaults;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Each point where a gated call can fail, made to fail for real (a store that refuses, a commit
 * that breaks, a handler that cannot tell): what the model reads is one of three truths, in the
 * error's type, its {@code executed} and {@code retry_with_same_key} fields, and its sentence.
 */
class FailureTruthsTest {
  private static final ClaimId ID = new ClaimId("constant:acme", "refund_order", "k-1");

  private final TestTools tools = new TestTools();
  private final FlakyStore store = new FlakyStore();
  private final UnitOfWork unit = new UnitOfWork(store);
  private final AtomicInteger runs = new AtomicInteger();
  private final List<IdempotencyGate> gates = new ArrayList<>();

  @AfterEach
  void closeGates() {
    gates.forEach(IdempotencyGate::close);
  }

  private GatedTool tool(GatePolicy policy, ToolPolicy toolPolicy) {
    IdempotencyGate gate = IdempotencyGate.builder(store).policy(policy).build();
    gates.add(gate);
    return new GatedTool(
        tools.refundTool(),
        toolPolicy,
        gate,
        TenantResolver.fixed("acme"),
        null,
        new CallToolResultMapper(McpJsonDefaults.getMapper()),
        Auditor.NONE);
  }

  private GatedTool tool(GatePolicy policy) {
    return tool(policy, ToolPolicy.defaults());
  }

  private static GatePolicy.Builder noWait() {
    return GatePolicy.builder().inFlightWait(Duration.ZERO);
  }

  private CallToolResult direct(GatedTool tool, Function<CallToolRequest, CallToolResult> handler) {
    return tool.call(
        McpTransportContext.EMPTY,
        GatedServerContract.refund("k-1", 500),
        new Invocation.Direct(
            request -> {
              runs.incrementAndGet();
              return handler.apply(request);
            }));
  }

  private CallToolResult transactional(GatedTool tool) {
    return transactional(tool, GatedServerContract.refund("k-1", 500));
  }

  private CallToolResult transactional(GatedTool tool, CallToolRequest request) {
    return tool.call(
        McpTransportContext.EMPTY,
        request,
        new Invocation.Transactional<>(
            "refund_order",
            unit,
            (r, writes) -> {
              runs.incrementAndGet();
              unit.write(writes, "refund " + runs.get());
              return CallToolResult.builder().addTextContent("refunded").build();
            }));
  }

  private static String text(CallToolResult result) {
    return ((McpSchema.TextContent) result.content().get(0)).text();
  }

  private static CallToolResult ok(CallToolRequest request) {
    return CallToolResult.builder().addTextContent("refunded").build();
  }

  private ClaimState state() {
    return store.row(ID).orElseThrow().state();
  }

  @Test
  void aStoreThatCannotBeReachedAtTheClaimSaysNothingRanAndTheSameKeyIsSafe() {
    store.claimFails.set(true);

    CallToolResult result = direct(tool(noWait().build()), FailureTruthsTest::ok);

    assertThat(runs).hasValue(0);
    assertThat(GatedServerContract.error(result))
        .containsEntry("type", McpGateErrors.STORE_UNAVAILABLE)
        .containsEntry("executed", "no")
        .containsEntry("retry_with_same_key", true);
    assertThat(text(result)).contains("did not take effect", "safe to retry", "same key");
  }

  @Test
  void aCommitThatRolledBackSaysNothingTookEffectAndTheRetryRunsOnce() {
    GatedTool tool = tool(noWait().build());
    unit.commitFault = UnitOfWork.Fault.INSTEAD_OF_APPLYING;

    CallToolResult result = transactional(tool);

    assertThat(GatedServerContract.error(result))
        .containsEntry("type", McpGateErrors.STORE_UNAVAILABLE)
        .containsEntry("executed", "no")
        .containsEntry("retry_with_same_key", true);
    assertThat(text(result)).contains("rolled back", "nothing took effect", "same key");
    assertThat(unit.committedWrites).isEmpty();
    assertThat(store.row(ID)).isEmpty();

    unit.commitFault = UnitOfWork.Fault.NONE;
    CallToolResult retry = transactional(tool);

    assertThat(retry.isError()).isNotEqualTo(Boolean.TRUE);
    assertThat(unit.committedWrites).containsExactly("refund 2");
  }

  @Test
  void aCommitWhoseOutcomeIsUnknownSaysItMayHaveTakenEffectAndTheSameKeyFindsOut() {
    GatedTool tool = tool(noWait().build());
    unit.commitFault = UnitOfWork.Fault.INSTEAD_OF_APPLYING;
    unit.onCommitFault = () -> store.releaseFails.set(true); // the database went away

    CallToolResult result = transactional(tool);

    assertThat(runs).hasValue(1);
    assertThat(GatedServerContract.error(result))
        .containsEntry("type", McpGateErrors.OUTCOME_UNKNOWN)
        .containsEntry("executed", "unknown")
        .containsEntry("retry_with_same_key", true);
    assertThat(text(result))
        .contains(
            "The call ran",
            "may have taken effect",
            "same key",
            "returns the first result",
            "Do not send it with a new key")
        .doesNotContain("not run", "was not", "nothing took effect");
    assertThat(state()).isEqualTo(ClaimState.IN_PROGRESS); // not freed

    store.releaseFails.set(false);
    CallToolResult retry = transactional(tool); // the attempt's lease has not run out yet

    assertThat(runs).hasValue(1);
    assertThat(GatedServerContract.error(retry))
        .containsEntry("type", McpGateErrors.KEY_IN_PROGRESS)
        .containsEntry("retry_with_same_key", true)
        .containsKey("retry_after_ms");
  }

  @Test
  void anOutcomeUnknownFromTheHandlerSaysItMayHaveRunAndFencesTheKeyUntilSettled() {
    GatedTool tool = tool(noWait().build());

    CallToolResult result =
        direct(
            tool,
            r -> {
              throw new OutcomeUnknownException("the payment provider timed out");
            });

    assertThat(GatedServerContract.error(result))
        .containsEntry("type", McpGateErrors.OUTCOME_UNKNOWN)
        .containsEntry("executed", "unknown")
        .containsEntry("retry_with_same_key", false);
    assertThat(text(result))
        .contains(
            "may have", "Do not send it with a new key", "until someone checks and settles it")
        .doesNotContain("not run");
    assertThat(state()).isEqualTo(ClaimState.UNKNOWN);

    CallToolResult retry = direct(tool, FailureTruthsTest::ok);

    assertThat(runs).hasValue(1);
    assertThat(GatedServerContract.error(retry))
        .containsEntry("type", McpGateErrors.OUTCOME_UNKNOWN)
        .containsEntry("executed", "unknown")
        .containsEntry("retry_with_same_key", false)
        .doesNotContainKey("retry_after_ms");
    assertThat(text(retry))
        .contains(
            "may have taken effect",
            "until someone checks and settles it",
            "Do not send it with a new key");
  }

  @Test
  void anOutcomeUnknownWhoseFenceTheStoreRefusesIsStillToldAsUnknownAndNoRetryRunsIt() {
    GatedTool tool = tool(noWait().build());
    store.markUnknownFails.set(true); // the fence waits for the store, the lease kept renewed

    CallToolResult result =
        direct(
            tool,
            r -> {
              throw new OutcomeUnknownException("the payment provider timed out");
            });

    assertThat(GatedServerContract.error(result))
        .containsEntry("type", McpGateErrors.OUTCOME_UNKNOWN)
        .containsEntry("executed", "unknown");
    assertThat(state()).isEqualTo(ClaimState.IN_PROGRESS); // held, its fence still to be written
    CallToolResult retry = direct(tool, FailureTruthsTest::ok);
    assertThat(GatedServerContract.error(retry))
        .containsEntry("type", McpGateErrors.KEY_IN_PROGRESS);
    assertThat(runs).hasValue(1);
  }

  @Test
  void withAReconcilerTheSameKeyIsWorthRetryingAfterAnUnknownOutcome() {
    GatedTool tool =
        tool(noWait().reconciler((id, key) -> Reconciler.Verdict.stillUnknown()).build());

    CallToolResult result =
        direct(
            tool,
            r -> {
              throw new OutcomeUnknownException("the payment provider timed out");
            });
    CallToolResult retry = direct(tool, FailureTruthsTest::ok);

    assertThat(runs).hasValue(1);
    assertThat(GatedServerContract.error(result))
        .containsEntry("executed", "unknown")
        .containsEntry("retry_with_same_key", true);
    assertThat(GatedServerContract.error(retry))
        .containsEntry("type", McpGateErrors.OUTCOME_UNKNOWN)
        .containsEntry("executed", "unknown")
        .containsEntry("retry_with_same_key", true)
        .containsKey("retry_after_ms");
    assertThat(text(retry)).contains("the server checks again");
  }

  @Test
  void aFailureThePolicyCallsUnknownIsToldAsUnknownNotPassedOnAsAPlainError() {
    GatedTool tool =
        tool(noWait().outcomeUnknownWhen(t -> t.getCause() instanceof TimeoutException).build());

    CallToolResult result =
        direct(
            tool,
            r -> {
              throw new IllegalStateException(
                  "refund call", new TimeoutException("read timed out"));
            });

    assertThat(GatedServerContract.error(result))
        .containsEntry("type", McpGateErrors.OUTCOME_UNKNOWN)
        .containsEntry("executed", "unknown");
    assertThat(state()).isEqualTo(ClaimState.UNKNOWN);
  }

  @Test
  void aPlainHandlerFailureStillPropagatesAndFreesTheKey() {
    GatedTool tool = tool(noWait().build());

    assertThatThrownBy(
            () ->
                direct(
                    tool,
                    r -> {
                      throw new IllegalStateException("card declined");
                    }))
        .hasMessage("card declined");

    assertThat(store.row(ID)).isEmpty();
  }

  @Test
  void anInterruptedHandlerIsToldAsUnknown() {
    GatedTool tool = tool(noWait().build());
    try {
      CallToolResult result =
          direct(
              tool,
              r -> {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("stopped midway");
              });

      assertThat(GatedServerContract.error(result))
          .containsEntry("type", McpGateErrors.OUTCOME_UNKNOWN)
          .containsEntry("executed", "unknown");
      assertThat(state()).isEqualTo(ClaimState.UNKNOWN);
    } finally {
      Thread.interrupted();
    }
  }

  @Test
  void aResultTooLargeToKeepSaysItRanAndIsNeverRunAgain() {
    GatedTool tool = tool(noWait().maxResultBytes(64).build());
    CallToolResult big = CallToolResult.builder().addTextContent("x".repeat(500)).build();

    CallToolResult result = direct(tool, r -> big);
    CallToolResult retry = direct(tool, r -> big);

    assertThat(runs).hasValue(1);
    assertThat(GatedServerContract.error(result))
        .containsEntry("type", McpGateErrors.OUTCOME_UNKNOWN)
        .containsEntry("executed", "yes")
        .containsEntry("retry_with_same_key", false);
    assertThat(text(result)).contains("ran and took effect").doesNotContain("not run");
    assertThat(GatedServerContract.error(retry))
        .containsEntry("type", McpGateErrors.OUTCOME_UNKNOWN)
        .containsEntry("executed", "yes")
        .containsEntry("retry_with_same_key", false);
    assertThat(text(retry)).contains("ran before and took effect");
  }

  @Test
  void anUngatedTransactionalHandlerThatThrowsAnErrorIsRolledBackNeverCommitted() {
    GatedTool tool = tool(noWait().build(), ToolPolicy.builder().required(false).build());
    Invocation invocation =
        new Invocation.Transactional<>(
            "refund_order",
            unit,
            (r, writes) -> {
              unit.write(writes, "half a refund");
              throw new StackOverflowError("deep (test)");
            });

    assertThatThrownBy(
            () ->
                tool.call(
                    McpTransportContext.EMPTY, GatedServerContract.refund(null, 500), invocation))
        .isInstanceOf(StackOverflowError.class);

    assertThat(unit.log).containsExactly("begin", "rollback", "close");
    assertThat(unit.committedWrites).isEmpty();
  }

  @Test
  void anUngatedTransactionalHandlerThatThrowsACheckedExceptionIsRolledBack() {
    GatedTool tool = tool(noWait().build(), ToolPolicy.builder().required(false).build());
    Invocation invocation =
        new Invocation.Transactional<>(
            "refund_order",
            unit,
            (r, writes) -> {
              unit.write(writes, "half a refund");
              throw new java.io.IOException("disk full (test)");
            });

    assertThatThrownBy(
            () ->
                tool.call(
                    McpTransportContext.EMPTY, GatedServerContract.refund(null, 500), invocation))
        .isInstanceOf(ActionFailedException.class)
        .hasRootCauseMessage("disk full (test)");

    assertThat(unit.log).containsExactly("begin", "rollback", "close");
    assertThat(unit.committedWrites).isEmpty();
  }

  @Test
  void anUngatedTransactionalHandlerThatReturnsIsCommitted() {
    GatedTool tool = tool(noWait().build(), ToolPolicy.builder().required(false).build());

    CallToolResult result = transactional(tool, GatedServerContract.refund(null, 500));

    assertThat(result.isError()).isNotEqualTo(Boolean.TRUE);
    assertThat(unit.log).containsExactly("begin", "commit", "close");
    assertThat(unit.committedWrites).containsExactly("refund 1");
  }
}
