package dev.mcpgate.quarkus.internal;

import io.quarkus.arc.Arc;
import jakarta.annotation.Priority;
import jakarta.inject.Inject;
import jakarta.interceptor.AroundInvoke;
import jakarta.interceptor.Interceptor;
import jakarta.interceptor.InvocationContext;
import jakarta.transaction.TransactionSynchronizationRegistry;

/**
 * Refuses a gated tool called (from Java) inside a transaction its caller began, before the gate
 * claims anything: the gate would store its result when it returns, before that transaction ends,
 * and a rollback of it (which undoes what the tool wrote) would leave a stored result that says the
 * effect happened; a commit after the tool threw would keep what a retry then writes again. A gated
 * tool called inside another gated call is part of that call ({@link GateInterceptor}) and passes.
 * Runs just outside the gate; registered only where the application has a transaction manager.
 */
@Gated
@Interceptor
@Priority(Interceptor.Priority.PLATFORM_BEFORE + 99)
public class CallerTransaction {
  @Inject GatedTools tools;
  @Inject CurrentCall current;
  @Inject TransactionSynchronizationRegistry transactions;

  @AroundInvoke
  Object check(InvocationContext ic) throws Exception {
    GatedTools.Tool tool = tools.find(ic.getMethod());
    if (tool != null
        && transactions.getTransactionKey() != null
        && !(Arc.container().requestContext().isActive() && current.inside())) {
      throw new IllegalStateException(
          "the gated tool "
              + tool.name()
              + " was called inside a transaction its caller began, which ends after the gate"
              + " stores its result: a rollback of it would leave a stored result that is not"
              + " true. Nothing ran. Call it outside a transaction (its own @Transactional"
              + " begins one)");
    }
    return ic.proceed();
  }
}
