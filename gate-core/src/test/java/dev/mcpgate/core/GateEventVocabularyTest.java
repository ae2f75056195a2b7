package dev.mcpgate.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Every event type has a word in exactly one of the three vocabularies the meters read ({@code
 * outcome}, {@code attemptResult}, {@code renewalResult}), so a listener that reads them counts
 * every event once.
 */
class GateEventVocabularyTest {

  /** An event of the type, with the reason, rejection or failure that type needs. */
  static GateEvent of(GateEvent.Type type) {
    ClaimId id = new ClaimId("acme", "refund_order", "k-1");
    return new GateEvent(
        type,
        type == GateEvent.Type.REJECTED ? null : id,
        1,
        null,
        type == GateEvent.Type.REFUSED ? RefusalReason.CONFLICT : null,
        "message",
        null,
        Instant.EPOCH,
        null,
        Duration.ZERO,
        "refund_order",
        type == GateEvent.Type.REJECTED ? RejectionReason.TENANT_UNKNOWN : null,
        type == GateEvent.Type.FAILED ? FailureReason.STORE_UNAVAILABLE : null);
  }

  @ParameterizedTest
  @EnumSource(GateEvent.Type.class)
  void everyTypeHasAWordInExactlyOneVocabulary(GateEvent.Type type) {
    GateEvent e = of(type);
    List<String> words = new ArrayList<>();
    for (String word : new String[] {e.outcome(), e.attemptResult(), e.renewalResult()}) {
      if (word != null) {
        words.add(word);
      }
    }
    assertThat(words).as("the words of %s", type).hasSize(1);
  }

  @Test
  void renewalsAreRenewedOrFailed() {
    assertThat(of(GateEvent.Type.LEASE_RENEWED).renewalResult()).isEqualTo("renewed");
    assertThat(of(GateEvent.Type.LEASE_RENEWAL_FAILED).renewalResult()).isEqualTo("failed");
  }
}
