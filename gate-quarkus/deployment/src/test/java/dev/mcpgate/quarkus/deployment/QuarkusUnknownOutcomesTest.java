package dev.mcpgate.quarkus.deployment;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.core.GatePolicy;
import io.quarkiverse.mcp.server.Cancellation;
import jakarta.transaction.HeuristicMixedException;
import jakarta.transaction.HeuristicRollbackException;
import jakarta.transaction.RollbackException;
import jakarta.transaction.SystemException;
import org.junit.jupiter.api.Test;

/**
 * The gate's rule, which gate-core spells by name, reads the Quarkus stack's failures as they are:
 * a JTA commit that failed (Narayana's {@code RollbackException} was seen thrown though the row had
 * committed: {@code review.CommitAnswerLostReviewTest}), Mutiny's timeout and the MCP server's
 * cancellation mean the outcome is unknown; a heuristic rollback (every resource rolled back) does
 * not.
 */
class QuarkusUnknownOutcomesTest {
  private final GatePolicy policy = GatePolicy.defaults();

  @Test
  void aFailedCommitATimeoutAndACancellationAreUnknownOutcomes() {
    assertThat(policy.isOutcomeUnknown(new RollbackException("ARJUNA016053"))).isTrue();
    assertThat(policy.isOutcomeUnknown(new HeuristicMixedException())).isTrue();
    assertThat(policy.isOutcomeUnknown(new SystemException("commit failed"))).isTrue();
    assertThat(policy.isOutcomeUnknown(new io.smallrye.mutiny.TimeoutException())).isTrue();
    assertThat(policy.isOutcomeUnknown(new Cancellation.OperationCancellationException())).isTrue();
  }

  @Test
  void aHeuristicRollbackIsNot() {
    assertThat(policy.isOutcomeUnknown(new HeuristicRollbackException())).isFalse();
  }
}
