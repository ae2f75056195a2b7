package dev.mcpgate.jdbc.review;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.core.GatePolicy;
import dev.mcpgate.core.GateResult;
import dev.mcpgate.core.IdempotencyGate;
import dev.mcpgate.core.ResultMapper;
import dev.mcpgate.core.ToolCall;
import dev.mcpgate.core.spi.ClaimRecord;
import dev.mcpgate.jdbc.JdbcIdempotencyStore;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;

/**
 * Review: H2's {@code CURRENT_TIMESTAMP} (the store's clock on H2) is frozen for the whole of a
 * transaction in H2's regular mode (and its PostgreSQL mode). In single-commit mode the claim is
 * the transaction's first statement, so the completion, written at the end of the same transaction,
 * takes the claim's time as "now": {@code completed_at_ms} is the claim's time and {@code
 * expires_at_ms} is the claim's time plus the retention. An action that takes longer than the
 * retention commits a result that has already expired, and a retry sent at once runs the effect a
 * second time; in general the result is replayed for the retention minus the action's time. The
 * promise (and PostgreSQL and MariaDB, whose clock moves within a transaction): a completed result
 * is replayed for the retention counted from its completion.
 */
class H2SingleCommitClockReviewTest {

  @Test
  void aSingleCommitResultIsReplayedForTheRetentionCountedFromItsCompletion() throws Exception {
    JdbcDataSource h2 = new JdbcDataSource();
    h2.setURL("jdbc:h2:mem:review_h2_clock;DB_CLOSE_DELAY=-1");
    JdbcIdempotencyStore store =
        JdbcIdempotencyStore.builder(h2)
            .tableName("review_h2_clock")
            .createSchemaIfMissing(true)
            .build();
    IdempotencyGate gate =
        IdempotencyGate.builder(store)
            .policy(
                GatePolicy.builder()
                    .retention(Duration.ofSeconds(2))
                    .lease(Duration.ofSeconds(1))
                    .leaseRenewal(Duration.ofMillis(250))
                    .build())
            .build();
    ToolCall call =
        ToolCall.of("acme", "send_mail", "k-" + UUID.randomUUID(), Map.of("to", "a@example.com"));
    AtomicInteger runs = new AtomicInteger();

    GateResult<String> first =
        gate.executeSingleCommit(
            call,
            ResultMapper.utf8(),
            store.singleCommit(),
            (c, ctx) -> {
              runs.incrementAndGet();
              Thread.sleep(2_500); // longer than the retention
              return "sent";
            });
    Instant actionEnded = store.now();
    assertThat(first).isInstanceOf(GateResult.Executed.class);

    ClaimRecord row = store.find(call.id()).orElseThrow();
    // the retry, sent at once, must replay: the result was stored a moment ago
    GateResult<String> retry =
        gate.executeSingleCommit(
            call,
            ResultMapper.utf8(),
            store.singleCommit(),
            (c, ctx) -> {
              runs.incrementAndGet();
              return "sent again";
            });

    assertThat(retry)
        .as("a retry right after the completion")
        .isInstanceOf(GateResult.Replayed.class);
    assertThat(runs).as("the effect runs once within the retention").hasValue(1);
    assertThat(row.completedAt())
        .as("the completion's time is when it was written, not when the claim was")
        .isAfter(actionEnded.minusMillis(1_000));
  }
}
