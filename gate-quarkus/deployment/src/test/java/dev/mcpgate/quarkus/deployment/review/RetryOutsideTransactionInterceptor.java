package dev.mcpgate.quarkus.deployment.review;

import jakarta.annotation.Priority;
import jakarta.interceptor.AroundInvoke;
import jakarta.interceptor.Interceptor;
import jakarta.interceptor.InvocationContext;

/**
 * Retries once on {@link TransactionOrderTools.ReceiptFailed} (as {@code @Retry(retryOn =
 * ReceiptFailed.class, maxRetries = 1)}), between the gate (PLATFORM_BEFORE + 100) and
 * {@code @Transactional} (PLATFORM_BEFORE + 200).
 */
@RetryOutsideTransaction
@Interceptor
@Priority(Interceptor.Priority.PLATFORM_BEFORE + 150)
public class RetryOutsideTransactionInterceptor {
  @AroundInvoke
  Object around(InvocationContext ic) throws Exception {
    try {
      return ic.proceed();
    } catch (TransactionOrderTools.ReceiptFailed e) {
      return ic.proceed();
    }
  }
}
