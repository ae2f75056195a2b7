package dev.mcpgate.spring;

import dev.mcpgate.mcp.TransactionEnds;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * How the transaction of a gated {@code @Transactional} tool method ended, which what it returned
 * or threw does not tell: Spring commits when the method throws a checked exception or one its
 * {@code noRollbackFor} names, and rolls back without a word a transaction the method marked
 * rollback-only itself. {@link ToolExceptions} runs {@link #watch} inside the transaction's advice,
 * which registers for its end. Used only where spring-tx is on the class path.
 */
final class Ending {
  /** A class of spring-tx, present when transactions can be watched. */
  static final String MANAGER =
      "org.springframework.transaction.support.TransactionSynchronizationManager";

  private Ending() {}

  /**
   * Registers for the end of the real transaction this runs in (not the empty one of a {@code
   * SUPPORTS} method), telling it to the invocation's {@link TransactionEnds} (a retry's attempts
   * each begin one). One it joined (begun outside the tool) ends after the call, and one an
   * interceptor stopped waiting for may too: the tool then answers while it is open, and its
   * outcome is unknown ({@link TransactionEnds#returned}).
   */
  static void watch(WatchedInvocation invocation) {
    if (!TransactionSynchronizationManager.isSynchronizationActive()
        || !TransactionSynchronizationManager.isActualTransactionActive()) {
      return;
    }
    int transaction = invocation.ends.begun();
    TransactionSynchronizationManager.registerSynchronization(
        new TransactionSynchronization() {
          @Override
          public void afterCompletion(int status) {
            invocation.ends.ended(
                transaction,
                status == STATUS_COMMITTED
                    ? TransactionEnds.End.COMMITTED
                    : status == STATUS_ROLLED_BACK
                        ? TransactionEnds.End.ROLLED_BACK
                        : TransactionEnds.End.UNKNOWN);
          }
        });
  }
}
