package dev.mcpgate.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.mcpgate.core.memory.InMemoryIdempotencyStore;
import dev.mcpgate.core.spi.ClaimAttempt;
import dev.mcpgate.core.spi.ClaimRecord;
import dev.mcpgate.core.spi.ClaimRequest;
import dev.mcpgate.core.spi.ClaimState;
import dev.mcpgate.core.spi.ForwardingIdempotencyStore;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A store whose table compares keys without case (a case-insensitive collation, {@code citext}, a
 * MySQL connection whose character set turns other letters into {@code ?}) files two keys under one
 * row, and answers a claim with the row of the other key: the second call was told a replay of a
 * result it never produced (review C, F1 and F2, on PostgreSQL, MariaDB and H2). The gate now fails
 * such a claim closed, naming both keys, before anything runs.
 */
class ClaimOfAnotherKeyFailsClosedTest {
  /** Files every key in lower case, as a case-insensitive key column does. */
  private static final class CaseFoldingStore extends ForwardingIdempotencyStore {
    CaseFoldingStore(InMemoryIdempotencyStore rows) {
      super(rows);
    }

    @Override
    public ClaimAttempt claim(ClaimRequest r) {
      return super.claim(
          new ClaimRequest(folded(r.id()), r.argsHash(), r.token(), r.lease(), r.retention()));
    }

    @Override
    public Optional<ClaimRecord> find(ClaimId id) {
      return super.find(folded(id));
    }

    private static ClaimId folded(ClaimId id) {
      return new ClaimId(id.tenant(), id.tool(), id.key().toLowerCase(Locale.ROOT));
    }
  }

  private final InMemoryIdempotencyStore rows = InMemoryIdempotencyStore.create();
  private final AtomicInteger runs = new AtomicInteger();

  private GateResult<String> refund(IdempotencyGate gate, String key) {
    return gate.execute(
        ToolCall.of("acme", "refund_order", key, Map.of("order_id", "ord_9f2")),
        ResultMapper.utf8(),
        ctx -> "refund " + runs.incrementAndGet() + " under " + key);
  }

  @Test
  void aKeyTheStoreFilesUnderAnotherIsNeverToldTheOthersResult() {
    try (IdempotencyGate gate = IdempotencyGate.builder(new CaseFoldingStore(rows)).build()) {
      assertThat(refund(gate, "refund-1")).isInstanceOf(GateResult.Executed.class);

      GateResult<String> other = refund(gate, "Refund-1");

      assertThat(other)
          .as("another key: not a replay of refund-1's result")
          .isInstanceOfSatisfying(
              GateResult.Failed.class,
              f -> {
                assertThat(f.reason()).isEqualTo(FailureReason.STORE_UNAVAILABLE);
                assertThat(f.effect()).isEqualTo(GateResult.Effect.NO);
                assertThat(f.message())
                    .contains("\"Refund-1\"")
                    .contains("\"refund-1\"")
                    .contains("does not keep tenant, tool and key as sent");
              });
      assertThat(runs).hasValue(1);
    }
  }

  @Test
  void aClaimAcquiredUnderAnotherKeyIsReleasedAndRunsNothing() {
    try (IdempotencyGate gate = IdempotencyGate.builder(new CaseFoldingStore(rows)).build()) {
      GateResult<String> first = refund(gate, "Refund-2");

      assertThat(first).isInstanceOf(GateResult.Failed.class);
      assertThat(runs).as("nothing ran under a row of another key").hasValue(0);
      assertThat(rows.find(new ClaimId("acme", "refund_order", "refund-2")))
          .as("the row it acquired is released, not left held for a lease")
          .isEmpty();
    }
  }

  @Test
  void anOperatorSettlementOfAKeyTheStoreFilesUnderAnotherSettlesNothing() {
    try (IdempotencyGate gate = IdempotencyGate.builder(new CaseFoldingStore(rows)).build()) {
      ClaimOutcome.Acquired held =
          (ClaimOutcome.Acquired)
              gate.claim(ToolCall.of("acme", "refund_order", "refund-3", Map.of("o", 1)));
      assertThat(gate.markUnknown(held)).isTrue();
      ClaimId other = new ClaimId("acme", "refund_order", "Refund-3");

      assertThatThrownBy(() -> gate.resolveUnknown(other, Reconciler.Verdict.notHappened()))
          .isInstanceOf(StoreUnavailableException.class)
          .hasMessageContaining("\"Refund-3\"")
          .hasMessageContaining("\"refund-3\"");
      assertThat(rows.find(held.id()))
          .as("refund-3 stays fenced: nothing was settled under another key's name")
          .hasValueSatisfying(r -> assertThat(r.state()).isEqualTo(ClaimState.UNKNOWN));
    }
  }
}
