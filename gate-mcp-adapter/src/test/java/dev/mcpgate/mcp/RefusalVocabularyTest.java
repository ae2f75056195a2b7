package dev.mcpgate.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.core.ClaimId;
import dev.mcpgate.core.GateResult;
import dev.mcpgate.core.RefusalReason;
import dev.mcpgate.core.audit.AuditDecision;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.time.Duration;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * Each refusal reason, said in each vocabulary it reaches: the audit's decision (one of its own)
 * and the model's error type (the one {@link ModelMessages#of} puts in the result).
 */
class RefusalVocabularyTest {
  private static final ClaimId ID = new ClaimId("acme", "refund_order", "k-1");

  @SuppressWarnings("unchecked")
  private static String errorType(CallToolResult result) {
    Map<String, Object> content = (Map<String, Object>) result.structuredContent();
    return (String) ((Map<String, Object>) content.get("error")).get("type");
  }

  @Test
  void eachReasonIsADistinctAuditDecision() {
    Set<AuditDecision> decisions = EnumSet.noneOf(AuditDecision.class);
    for (RefusalReason reason : RefusalReason.values()) {
      assertThat(decisions.add(AuditDecision.of(reason))).as(reason.name()).isTrue();
    }
    assertThat(decisions).hasSize(RefusalReason.values().length);
  }

  @Test
  void eachReasonHasTheErrorTypeTheModelGets() {
    for (RefusalReason reason : RefusalReason.values()) {
      for (boolean reconciles : new boolean[] {false, true}) {
        CallToolResult result =
            ModelMessages.of(
                new GateResult.Refused<>(ID, reason, Duration.ofMillis(10), "m"), reconciles);
        assertThat(errorType(result))
            .as("%s, reconciles %s", reason, reconciles)
            .isEqualTo(ModelMessages.errorType(reason));
      }
    }
  }

  /**
   * The model's types are fewer than the reasons, by design (SEP-3182's names): the reasons that
   * share a type differ in their sentence, and in {@code executed} for an unknown outcome and a
   * result that was not stored. Pinned, so a change to the types is a decision, not an accident.
   */
  @Test
  void theReasonsThatShareAModelErrorTypeAreExactlyTheKnownPairs() {
    Map<String, Set<RefusalReason>> byType = new TreeMap<>();
    Map<RefusalReason, String> types = new EnumMap<>(RefusalReason.class);
    for (RefusalReason reason : RefusalReason.values()) {
      String type = ModelMessages.errorType(reason);
      types.put(reason, type);
      byType.computeIfAbsent(type, t -> EnumSet.noneOf(RefusalReason.class)).add(reason);
    }
    assertThat(types)
        .containsExactlyInAnyOrderEntriesOf(
            Map.of(
                RefusalReason.CONFLICT, McpGateErrors.KEY_CONFLICT,
                RefusalReason.IN_PROGRESS, McpGateErrors.KEY_IN_PROGRESS,
                RefusalReason.HOLDER_UNRESPONSIVE, McpGateErrors.KEY_IN_PROGRESS,
                RefusalReason.OUTCOME_UNKNOWN, McpGateErrors.OUTCOME_UNKNOWN,
                RefusalReason.RESULT_NOT_STORED, McpGateErrors.OUTCOME_UNKNOWN));
    assertThat(byType.values())
        .containsExactlyInAnyOrderElementsOf(
            List.of(
                EnumSet.of(RefusalReason.CONFLICT),
                EnumSet.of(RefusalReason.IN_PROGRESS, RefusalReason.HOLDER_UNRESPONSIVE),
                EnumSet.of(RefusalReason.OUTCOME_UNKNOWN, RefusalReason.RESULT_NOT_STORED)));
  }

  @Test
  void eachKeySourceKeepsTheNameItHadOnTheWire() {
    Set<String> names = new HashSet<>();
    for (KeySource source : KeySource.values()) {
      assertThat(source.wireName()).isEqualTo(source.name().toLowerCase(Locale.ROOT));
      assertThat(names.add(source.wireName())).isTrue();
    }
  }
}
