package dev.mcpgate.quarkus.nojta;

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
 * Review AB: runs the rest of the chain on another thread and answers a fallback error response
 * after 300 ms (a TimeLimiter with a fallback), between the gate (PLATFORM_BEFORE + 100) and the
 * method; the method goes on.
 */
@AbandonWithoutJta
@Interceptor
@Priority(Interceptor.Priority.PLATFORM_BEFORE + 150)
public class AbandonWithoutJtaInterceptor {
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
