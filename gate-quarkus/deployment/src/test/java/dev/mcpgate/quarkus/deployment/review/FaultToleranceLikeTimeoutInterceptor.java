package dev.mcpgate.quarkus.deployment.review;

import jakarta.annotation.Priority;
import jakarta.interceptor.AroundInvoke;
import jakarta.interceptor.Interceptor;
import jakarta.interceptor.InvocationContext;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * What SmallRye Fault Tolerance's synchronous {@code @Timeout} does (smallrye-fault-tolerance
 * core/timeout/Timeout.doApply): the method runs on the caller's thread; when the timeout passes, a
 * watcher interrupts that thread; once the method returns, the interrupt flag is cleared
 * unconditionally ({@code Thread.interrupted()}, "per MP FT spec, chapter 6.1") and, if it timed
 * out, the method's result is dropped and a NEW {@code TimeoutException} is thrown, with no cause.
 * Priority: the MP FT default, {@code PLATFORM_AFTER + 10}, as SmallRye's
 * FaultToleranceInterceptor.
 */
@FaultToleranceLikeTimeout
@Interceptor
@Priority(Interceptor.Priority.PLATFORM_AFTER + 10)
public class FaultToleranceLikeTimeoutInterceptor {
  static final long TIMEOUT_MS = 300;
  private static final ScheduledExecutorService WATCHER =
      Executors.newSingleThreadScheduledExecutor(
          r -> {
            Thread t = new Thread(r, "stand-in-ft-timeout-watcher");
            t.setDaemon(true);
            return t;
          });

  @AroundInvoke
  Object around(InvocationContext ic) throws Exception {
    Thread caller = Thread.currentThread();
    AtomicBoolean finished = new AtomicBoolean();
    AtomicBoolean timedOut = new AtomicBoolean();
    ScheduledFuture<?> watch =
        WATCHER.schedule(
            () -> {
              if (finished.compareAndSet(false, true)) {
                timedOut.set(true);
                caller.interrupt();
              }
            },
            TIMEOUT_MS,
            TimeUnit.MILLISECONDS);
    Object result = null;
    Exception exception = null;
    boolean interrupted = false;
    try {
      result = ic.proceed();
    } catch (InterruptedException e) {
      interrupted = true;
    } catch (Exception e) {
      exception = e;
    } finally {
      if (finished.compareAndSet(false, true)) {
        watch.cancel(false);
      }
    }
    if (Thread.interrupted()) {
      interrupted = true;
    }
    if (interrupted && !timedOut.get()) {
      exception = new InterruptedException();
    }
    if (timedOut.get()) {
      throw new org.eclipse.microprofile.faulttolerance.exceptions.TimeoutException(
          ic.getMethod().getName() + " timed out");
    }
    if (exception != null) {
      throw exception;
    }
    return result;
  }
}
