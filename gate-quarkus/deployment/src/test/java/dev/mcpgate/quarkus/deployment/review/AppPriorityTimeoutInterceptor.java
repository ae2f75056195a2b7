package dev.mcpgate.quarkus.deployment.review;

import io.quarkiverse.mcp.server.ToolResponse;
import jakarta.annotation.Priority;
import jakarta.interceptor.AroundInvoke;
import jakarta.interceptor.Interceptor;
import jakarta.interceptor.InvocationContext;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Review AB: {@link AbandoningTimeoutInterceptor} at {@code Interceptor.Priority.APPLICATION}, the
 * priority an application's own interceptor usually has: inside the gate (+100), inside
 * {@code @Transactional} (+200) and inside the gate's {@code TransactionEnd} (+201).
 */
@AppPriorityTimeout
@Interceptor
@Priority(Interceptor.Priority.APPLICATION)
public class AppPriorityTimeoutInterceptor {
  @AroundInvoke
  Object around(InvocationContext ic) throws Exception {
    CompletableFuture<Object> run =
        CompletableFuture.supplyAsync(
            () -> {
              try {
                return ic.proceed();
              } catch (RuntimeException e) {
                throw e;
              } catch (Exception e) {
                throw new IllegalStateException(e);
              }
            });
    try {
      return run.get(300, TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      return ToolResponse.error(ic.getMethod().getName() + " did not finish in time");
    } catch (ExecutionException e) {
      throw e.getCause() instanceof Exception x ? x : e;
    }
  }
}
