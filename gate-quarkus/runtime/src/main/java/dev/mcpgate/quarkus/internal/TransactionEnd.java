package dev.mcpgate.quarkus.internal;

import dev.mcpgate.mcp.TransactionEnds;
import jakarta.annotation.Priority;
import jakarta.inject.Inject;
import jakarta.interceptor.AroundInvoke;
import jakarta.interceptor.Interceptor;
import jakarta.interceptor.InvocationContext;
import jakarta.transaction.Status;
import jakarta.transaction.Synchronization;
import jakarta.transaction.TransactionSynchronizationRegistry;

/**
 * Tells the gate how the transaction of a gated {@code @Transactional} tool ended, which what the
 * method returned or threw does not: Jakarta Transactions commits when the method throws a checked
 * exception or one its {@code dontRollbackOn} names, and rolls back without a word a transaction
 * marked rollback-only when the method returns. Runs just inside {@code @Transactional}'s
 * interceptor, with the transaction begun, and registers for its completion on behalf of the gated
 * call ({@link TransactionEnds}): a transaction still open when the method answers (an interceptor
 * of the application's stopped waiting for it) keeps the key fenced, for what it wrote may yet be
 * kept ({@link AttemptWatch} counts the attempts themselves). A gated call inside its caller's
 * transaction is refused before it runs ({@link CallerTransaction}). Registered only where the
 * application has a transaction manager.
 */
@Gated
@Interceptor
@Priority(Interceptor.Priority.PLATFORM_BEFORE + 201)
public class TransactionEnd {
  @Inject TransactionSynchronizationRegistry transactions;

  @AroundInvoke
  Object watch(InvocationContext ic) throws Exception {
    if (!(ic.getContextData().get(GateInterceptor.CALL) instanceof GateInterceptor.Call call)) {
      return ic.proceed();
    }
    if (transactions.getTransactionKey() != null) {
      int transaction = call.ends.begun();
      transactions.registerInterposedSynchronization(
          new Synchronization() {
            @Override
            public void beforeCompletion() {}

            @Override
            public void afterCompletion(int status) {
              call.ends.ended(
                  transaction,
                  status == Status.STATUS_COMMITTED
                      ? TransactionEnds.End.COMMITTED
                      : status == Status.STATUS_ROLLEDBACK
                          ? TransactionEnds.End.ROLLED_BACK
                          : TransactionEnds.End.UNKNOWN);
            }
          });
    }
    return ic.proceed(); // AttemptWatch, inside, refuses an attempt begun after the call answered
  }
}
