package dev.mcpgate.quarkus.internal;

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
 * call ({@link GateInterceptor.Call#ended}); a transaction that does not end inside the method (one
 * it joined) tells nothing. Registered only where the application has a transaction manager.
 */
@Gated
@Interceptor
@Priority(Interceptor.Priority.PLATFORM_BEFORE + 201)
public class TransactionEnd {
  @Inject TransactionSynchronizationRegistry transactions;

  @AroundInvoke
  Object watch(InvocationContext ic) throws Exception {
    if (ic.getContextData().get(GateInterceptor.CALL) instanceof GateInterceptor.Call call
        && transactions.getTransactionKey() != null) {
      transactions.registerInterposedSynchronization(
          new Synchronization() {
            @Override
            public void beforeCompletion() {}

            @Override
            public void afterCompletion(int status) {
              call.ended(
                  status == Status.STATUS_COMMITTED
                      ? GateInterceptor.TransactionEnding.COMMITTED
                      : status == Status.STATUS_ROLLEDBACK
                          ? GateInterceptor.TransactionEnding.ROLLED_BACK
                          : GateInterceptor.TransactionEnding.UNKNOWN);
            }
          });
    }
    return ic.proceed();
  }
}
