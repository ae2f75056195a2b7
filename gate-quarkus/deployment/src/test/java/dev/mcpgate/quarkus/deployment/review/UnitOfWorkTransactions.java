package dev.mcpgate.quarkus.deployment.review;

import jakarta.annotation.Priority;
import jakarta.inject.Inject;
import jakarta.interceptor.AroundInvoke;
import jakarta.interceptor.Interceptor;
import jakarta.interceptor.InvocationContext;
import jakarta.transaction.TransactionManager;

/**
 * Begins a transaction around the method, at PLATFORM_BEFORE + 99: CallerTransaction's own priority
 * (legal; equal priorities run in an undefined order, here ArC puts this class after
 * CallerTransaction and before the gate at + 100; under the name UnitOfWorkInterceptor it ran
 * before CallerTransaction and was refused). Its first run's audit write "fails" after the method
 * returned, and the whole unit of work (the charge with it) is rolled back; the exception goes to
 * the caller.
 */
@UnitOfWork
@Interceptor
@Priority(Interceptor.Priority.PLATFORM_BEFORE + 99)
public class UnitOfWorkTransactions {
  @Inject TransactionManager tm;

  @AroundInvoke
  Object around(InvocationContext ic) throws Exception {
    tm.begin();
    Object value;
    try {
      value = ic.proceed();
    } catch (Exception e) {
      tm.rollback();
      throw e;
    }
    if (Runs.inc("audit:" + ic.getParameters()[0]) == 1) {
      tm.rollback();
      throw new IllegalStateException("the audit write failed; the unit of work was rolled back");
    }
    tm.commit();
    return value;
  }
}
