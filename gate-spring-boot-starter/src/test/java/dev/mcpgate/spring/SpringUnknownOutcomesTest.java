package dev.mcpgate.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.core.GatePolicy;
import org.junit.jupiter.api.Test;
import org.springframework.transaction.CannotCreateTransactionException;
import org.springframework.transaction.HeuristicCompletionException;
import org.springframework.transaction.TransactionSystemException;
import org.springframework.transaction.UnexpectedRollbackException;

/**
 * The gate's rule, which gate-core spells by name, reads Spring's transaction failures as they are:
 * a commit that failed may have been carried out (its answer lost), so the key stays fenced; a
 * transaction that never began, or that was rolled back, ran no commit.
 */
class SpringUnknownOutcomesTest {
  private final GatePolicy policy = GatePolicy.defaults();

  @Test
  void aFailedOrMixedCommitIsAnUnknownOutcome() {
    assertThat(
            policy.isOutcomeUnknown(
                new TransactionSystemException("Could not commit JDBC transaction")))
        .isTrue();
    assertThat(
            policy.isOutcomeUnknown(
                new HeuristicCompletionException(
                    HeuristicCompletionException.STATE_MIXED, new IllegalStateException())))
        .isTrue();
  }

  @Test
  void aTransactionNeverBegunOrRolledBackIsNot() {
    assertThat(policy.isOutcomeUnknown(new CannotCreateTransactionException("no connection")))
        .isFalse();
    assertThat(policy.isOutcomeUnknown(new UnexpectedRollbackException("rolled back"))).isFalse();
  }
}
