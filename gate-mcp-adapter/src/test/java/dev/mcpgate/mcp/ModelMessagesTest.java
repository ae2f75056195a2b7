package dev.mcpgate.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.core.ClaimId;
import dev.mcpgate.core.FailureReason;
import dev.mcpgate.core.GateResult;
import dev.mcpgate.core.GateResult.Effect;
import dev.mcpgate.core.InvalidIdempotencyKeyException;
import dev.mcpgate.core.RefusalReason;
import dev.mcpgate.core.ResultTooLargeException;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The sentences a model reads for each refusal: one error type, and only what is known. */
class ModelMessagesTest {
  private static final ClaimId ID = new ClaimId("acme", "refund_order", "k-1");

  private static CallToolResult refused(RefusalReason reason, Duration retryAfter) {
    return ModelMessages.of(new GateResult.Refused<>(ID, reason, retryAfter, "for operators"));
  }

  private static String text(CallToolResult result) {
    return ((McpSchema.TextContent) result.content().get(0)).text();
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> error(CallToolResult result) {
    return (Map<String, Object>) ((Map<String, Object>) result.structuredContent()).get("error");
  }

  /**
   * A replay tells when the attempt that ran claimed the key; a result an operator settled after a
   * takeover tells when it was settled instead, since the takeover's claim time is not when the
   * effect ran.
   */
  @Test
  void aReplayTellsItsFirstExecutionAndASettledOneOnlyWhenItWasSettled() {
    CallToolResult stored = // as stored: a result that carried both marks of its own
        new CallToolResult(
            List.of(new McpSchema.TextContent("Refunded")),
            false,
            null,
            Map.of(
                "mine",
                1,
                McpGateErrors.META_FIRST_EXECUTED_AT,
                "1999-01-01T00:00:00Z",
                McpGateErrors.META_SETTLED_AT,
                "1999-01-01T00:00:00Z"));
    Instant claimed = Instant.parse("2030-01-01T00:00:00Z");
    Instant completed = Instant.parse("2030-01-01T00:00:07Z");

    Map<String, Object> ran =
        ModelMessages.markReplay(
                stored, new GateResult.Replayed<>(ID, stored, false, 1, claimed, completed))
            .meta();
    Map<String, Object> settled =
        ModelMessages.markReplay(
                stored,
                new GateResult.Replayed<>(
                    ID, stored, false, 2, claimed, completed, true, null, null, Duration.ZERO))
            .meta();

    assertThat(ran)
        .containsEntry("mine", 1)
        .containsEntry(McpGateErrors.META_REPLAYED, true)
        .containsEntry(McpGateErrors.META_FIRST_EXECUTED_AT, "2030-01-01T00:00:00Z")
        .doesNotContainKey(McpGateErrors.META_SETTLED_AT);
    assertThat(settled)
        .containsEntry("mine", 1)
        .containsEntry(McpGateErrors.META_REPLAYED, true)
        .containsEntry(McpGateErrors.META_SETTLED_AT, "2030-01-01T00:00:07Z")
        .doesNotContainKey(McpGateErrors.META_FIRST_EXECUTED_AT);
  }

  @Test
  void aRunningHolderIsStillRunningAndAStoppedOneIsSaidToHaveStopped() {
    CallToolResult running = refused(RefusalReason.IN_PROGRESS, Duration.ofMillis(1500));
    CallToolResult stopped = refused(RefusalReason.HOLDER_UNRESPONSIVE, Duration.ofMillis(700));

    assertThat(running.isError()).isTrue();
    assertThat(error(running))
        .containsEntry("type", McpGateErrors.KEY_IN_PROGRESS)
        .containsEntry("retry_after_ms", 1500L);
    assertThat(text(running))
        .contains("is still running", "after 1500 ms")
        .doesNotContain("stopped");

    assertThat(stopped.isError()).isTrue();
    assertThat(error(stopped))
        .containsEntry("type", McpGateErrors.KEY_IN_PROGRESS)
        .containsEntry("retry_after_ms", 700L);
    assertThat(text(stopped))
        .contains("stopped responding", "after 700 ms", "same key", "Do not use a new key")
        .doesNotContain("still running")
        // whether the tool passes its downstream key on is not the gate's to know (review)
        .doesNotContain("without acting twice");
  }

  @Test
  void everyRefusalReasonHasItsOwnSentence() {
    for (RefusalReason reason : RefusalReason.values()) {
      CallToolResult result = refused(reason, Duration.ofMillis(10));
      assertThat(result.isError()).as(reason.name()).isTrue();
      assertThat(text(result)).as(reason.name()).isNotBlank().doesNotContain("for operators");
    }
  }

  /** Every error the adapter can give, refusals with and without a reconciler included. */
  private static List<CallToolResult> everyError() {
    List<CallToolResult> all = new ArrayList<>();
    for (RefusalReason reason : RefusalReason.values()) {
      GateResult.Refused<Object> refused =
          new GateResult.Refused<>(ID, reason, Duration.ofMillis(10), "for operators");
      all.add(ModelMessages.of(refused, false));
      all.add(ModelMessages.of(refused, true));
    }
    InvalidIdempotencyKeyException badKey =
        new InvalidIdempotencyKeyException("key is blank", false);
    all.addAll(
        List.of(
            RejectionMessages.tenantUnknown(),
            RejectionMessages.tenantInvalid(badKey),
            RejectionMessages.forbidden("no"),
            RejectionMessages.keyRequired(ToolPolicy.defaults()),
            RejectionMessages.keyInvalid(badKey)));
    all.addAll(
        List.of(
            failure(FailureReason.STORE_UNAVAILABLE, Effect.NO, true, null),
            failure(FailureReason.ROLLED_BACK, Effect.NO, true, null),
            failure(FailureReason.COMMIT_UNKNOWN, Effect.UNKNOWN, true, null),
            failure(FailureReason.OUTCOME_UNKNOWN, Effect.UNKNOWN, false, null),
            failure(FailureReason.OUTCOME_UNKNOWN, Effect.UNKNOWN, true, null),
            failure(FailureReason.LEASE_LOST, Effect.UNKNOWN, true, null),
            failure(FailureReason.ARGUMENTS_INVALID, Effect.NO, false, null),
            failure(
                FailureReason.RESULT_TOO_LARGE,
                Effect.YES,
                false,
                new ResultTooLargeException("big", 2000, 1000)),
            failure(FailureReason.RESULT_UNREADABLE, Effect.YES, false, null)));
    return all;
  }

  /** The model's answer to a failure as the engine gives it (the reason's effect and advice). */
  private static CallToolResult failure(
      FailureReason reason, Effect effect, boolean retrySafe, Throwable cause) {
    return ModelMessages.of(
        new GateResult.Failed<>(
            ID, reason, effect, retrySafe, "for operators", cause, 1, null, null, null));
  }

  @Test
  void everyFailureButTheActionsOwnIsAnswered() {
    for (FailureReason reason : FailureReason.values()) {
      CallToolResult answer = failure(reason, Effect.NO, true, null);
      if (reason == FailureReason.ACTION_FAILED) {
        assertThat(answer).as("the handler's own failure is passed on as it threw it").isNull();
      } else {
        assertThat(answer).as(reason.name()).isNotNull();
        assertThat(error(answer)).containsEntry("executed", "no");
      }
    }
  }

  @Test
  void everyErrorSaysWhetherTheCallTookEffectAndWhetherTheSameKeyIsWorthRetrying() {
    for (CallToolResult result : everyError()) {
      Map<String, Object> error = error(result);
      assertThat(error.get("executed")).as(text(result)).isIn("no", "yes", "unknown");
      assertThat(error.get("retry_with_same_key")).as(text(result)).isIn(true, false);
      if (error.containsKey("retry_after_ms")) {
        assertThat(error).as(text(result)).containsEntry("retry_with_same_key", true);
      }
    }
  }

  @Test
  void noErrorSaysNotRunWhereTheCallRanOrMayHave() {
    for (CallToolResult result : everyError()) {
      String text = text(result);
      if (!"no".equals(error(result).get("executed"))) {
        assertThat(text)
            .doesNotContain(
                "not run", "did not run", "not take effect", "nothing took effect", "Nothing was");
        assertThat(text)
            .as("tells the model not to act twice")
            .containsAnyOf("new key", "new request");
      } else {
        assertThat(text).doesNotContain("may have");
      }
    }
  }

  @Test
  void anUnknownOutcomeWithoutAReconcilerIsNotWorthRetryingWithTheSameKeyButWithOneItIs() {
    GateResult.Refused<Object> fenced =
        new GateResult.Refused<>(
            ID, RefusalReason.OUTCOME_UNKNOWN, Duration.ofMillis(5000), "for operators");

    CallToolResult alone = ModelMessages.of(fenced, false);
    CallToolResult reconciled = ModelMessages.of(fenced, true);

    assertThat(error(alone))
        .containsEntry("type", McpGateErrors.OUTCOME_UNKNOWN)
        .containsEntry("executed", "unknown")
        .containsEntry("retry_with_same_key", false)
        .doesNotContainKey("retry_after_ms");
    assertThat(text(alone))
        .contains("until someone checks and settles it", "Do not send it with a new key")
        .doesNotContain("lease");
    assertThat(error(reconciled))
        .containsEntry("executed", "unknown")
        .containsEntry("retry_with_same_key", true)
        .containsEntry("retry_after_ms", 5000L);
  }

  @Test
  void aCommitWhoseOutcomeIsUnknownIsNotToldAsNotRun() {
    CallToolResult result = failure(FailureReason.COMMIT_UNKNOWN, Effect.UNKNOWN, true, null);

    assertThat(error(result))
        .containsEntry("type", McpGateErrors.OUTCOME_UNKNOWN)
        .containsEntry("executed", "unknown")
        .containsEntry("retry_with_same_key", true);
    assertThat(text(result))
        .contains("may have taken effect", "same key", "returns the first result");
  }

  /** A key reads the same to the model as in gate-core's messages ({@link ClaimId#toString}). */
  @Test
  void aKeyIsQuotedAsGateCoreQuotesIt() {
    String prefix = "(\"t\", \"x\", ";
    for (String key :
        List.of(
            "k1",
            "a\"b\\c",
            "x".repeat(80),
            "y".repeat(81) + "\"",
            "\u00e9t\u00e9 \ud83d\ude00",
            "rtl\u202eover",
            "z".repeat(ClaimId.MAX_LENGTH))) {
      String core = new ClaimId("t", "x", key).toString();
      assertThat(core).startsWith(prefix).endsWith(")");
      assertThat(ModelMessages.keyOf(new ClaimId("t", "x", key), "argument"))
          .as(key)
          .isEqualTo("idempotency key " + core.substring(prefix.length(), core.length() - 1));
    }
    assertThat(ModelMessages.keyOf(ID, "argument")).isEqualTo("idempotency key \"k-1\"");
  }
}
