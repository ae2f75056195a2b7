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
 * Runs the rest of the chain ({@code @Transactional} and the method) on another thread and, when it
 * has not finished within {@link #TIMEOUT_MS}, answers a fallback error response (a time limiter
 * with a fallback), or, for a method whose name ends in {@code Throwing}, throws an exception of
 * the application's; the method goes on, and its transaction ends later. For a method whose name
 * ends in {@code Late}, the other thread begins the rest 600 ms late (a busy pool). (A
 * TimeoutException thrown would fence the key anyway: the core reads it as an unknown outcome.) Its
 * priority puts it between the gate (PLATFORM_BEFORE + 100) and {@code @Transactional} (+ 200).
 */
@AbandoningTimeout
@Interceptor
@Priority(Interceptor.Priority.PLATFORM_BEFORE + 150)
public class AbandoningTimeoutInterceptor {
  static final long TIMEOUT_MS = 300;

  @AroundInvoke
  Object around(InvocationContext ic) throws Exception {
    CompletableFuture<Object> run =
        CompletableFuture.supplyAsync(
            () -> {
              try {
                if (ic.getMethod().getName().endsWith("Late")) {
                  Thread.sleep(600);
                }
                return ic.proceed();
              } catch (RuntimeException e) {
                throw e;
              } catch (Exception e) {
                throw new IllegalStateException(e);
              }
            });
    try {
      return run.get(TIMEOUT_MS, TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      if (ic.getMethod().getName().endsWith("Throwing")) {
        throw new IllegalStateException(ic.getMethod().getName() + " did not finish in time");
      }
      // the fallback: an error answer, as @Timeout with @Fallback (or a TimeLimiter's fallback)
      return ToolResponse.error(ic.getMethod().getName() + " did not finish in time");
    } catch (ExecutionException e) {
      throw e.getCause() instanceof Exception x ? x : e;
    }
  }
}
