package dev.mcpgate.examples;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.core.audit.AuditDecision;
import dev.mcpgate.core.audit.AuditRecord;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The status command's summary answers "did it run, and how often?" from the audit trail. An
 * attempt that ran and whose outcome is unknown, whose result was too large to keep, or whose
 * result the store refused, is recorded as OUTCOME_UNKNOWN, RESULT_NOT_STORED or STORE_UNAVAILABLE
 * with its attempt (not 0); a takeover (attempt 2) means an earlier attempt ran, or may have. The
 * summary must not say "ran 0 times" or "ran once" there. Found in the operations newcomer trial
 * (the summary counted only EXECUTED, TAKEOVER, RELEASED and LEASE_LOST as runs).
 */
class StatusSummaryTruthTest {
  private static AuditRecord record(AuditDecision decision, int attempt) {
    return new AuditRecord(
        Instant.parse("2026-12-03T12:00:00Z"),
        "context:acme",
        "refund_order",
        "k-1",
        "v1:ab",
        "[amount_cents, idempotency_key, order_id]",
        decision,
        null,
        attempt,
        null,
        1000);
  }

  @Test
  void anAttemptWhoseOutcomeIsUnknownIsNotToldAsRanZeroTimes() {
    String summary =
        Status.summary(
            List.of(
                record(AuditDecision.OUTCOME_UNKNOWN, 1),
                record(AuditDecision.OUTCOME_UNKNOWN, 0)));

    // today: "ran 0 times; outcome_unknown 2 times"
    assertThat(summary).doesNotStartWith("ran 0 times");
  }

  @Test
  void anAttemptWhoseResultWasTooLargeToKeepRanOnce() {
    String summary =
        Status.summary(
            List.of(
                record(AuditDecision.RESULT_NOT_STORED, 1),
                record(AuditDecision.RESULT_NOT_STORED, 0)));

    // today: "ran 0 times; result_not_stored 2 times", though the call "ran and took effect"
    assertThat(summary).startsWith("ran once");
  }

  @Test
  void anAttemptWhoseResultTheStoreRefusedRanOnce() {
    // the adapter records an action that ran, but whose result the store refused, so
    String summary = Status.summary(List.of(record(AuditDecision.STORE_UNAVAILABLE, 1)));

    // today: "ran 0 times; store_unavailable 1 time"; its reason says "ran, but its result could
    // not be stored"
    assertThat(summary).startsWith("ran once");
  }

  @Test
  void aTakeoverIsNotToldAsTheOnlyRun() {
    // attempt 1 was killed mid-action (no record: records are written after a decision ends)
    String summary = Status.summary(List.of(record(AuditDecision.TAKEOVER, 2)));

    // attempt 1 ran too, or may have
    assertThat(summary).doesNotStartWith("ran once").startsWith("ran 1 to 2 times");
  }
}
