package dev.mcpgate.spring;

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

  /** The handler's own invocation runs, no transaction of it seen yet. */
  static final int WATCHING = -1;

  /** Registered for the end of the invocation's transaction, which has not ended yet. */
  static final int REGISTERED = -2;

  static final int COMMITTED = TransactionSynchronization.STATUS_COMMITTED;
  static final int ROLLED_BACK = TransactionSynchronization.STATUS_ROLLED_BACK;
  static final int UNKNOWN = TransactionSynchronization.STATUS_UNKNOWN;

  private Ending() {}

  /**
   * Registers for the end of the real transaction this runs in (not the empty one of a {@code
   * SUPPORTS} method): the latest such one of a watched invocation is its {@code last} (a retry's
   * attempts each begin one), and any of them that committed, or may have, its {@code kept}; a
   * transaction it joined (begun outside the tool) ends after the call and tells nothing.
   */
  static void watch(WatchedInvocation invocation) {
    if (!TransactionSynchronizationManager.isSynchronizationActive()
        || !TransactionSynchronizationManager.isActualTransactionActive()) {
      return;
    }
    int attempt = ++invocation.transactions;
    invocation.last = REGISTERED;
    TransactionSynchronizationManager.registerSynchronization(
        new TransactionSynchronization() {
          @Override
          public void afterCompletion(int status) {
            invocation.earlier = invocation.kept;
            if (invocation.transactions == attempt) {
              invocation.last = status;
            }
            if (status != ROLLED_BACK && invocation.kept != COMMITTED) {
              invocation.kept = status;
            }
          }
        });
  }
}
