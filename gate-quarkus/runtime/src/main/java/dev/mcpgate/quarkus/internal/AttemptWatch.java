package dev.mcpgate.quarkus.internal;

import jakarta.annotation.Priority;
import jakarta.interceptor.AroundInvoke;
import jakarta.interceptor.Interceptor;
import jakarta.interceptor.InvocationContext;

/**
 * Counts each attempt of a gated method while it runs, innermost (after the application's
 * interceptors and Fault Tolerance's), on behalf of the gated call ({@link
 * dev.mcpgate.mcp.TransactionEnds#attemptBegan}): an interceptor between that runs the rest on
 * another thread and stops waiting (a time limiter answering a fallback, or throwing) leaves the
 * attempt running when the method answers, and the gate then keeps the key fenced, for what it does
 * may yet take effect. An attempt that begins after the gated call answered is refused: it would
 * run outside the call's claim.
 */
@Gated
@Interceptor
@Priority(Interceptor.Priority.PLATFORM_AFTER + 1000)
public class AttemptWatch {
  @AroundInvoke
  Object watch(InvocationContext ic) throws Exception {
    if (!(ic.getContextData().get(GateInterceptor.CALL) instanceof GateInterceptor.Call call)) {
      return ic.proceed();
    }
    call.ends.attemptBegan();
    try {
      // after counting: a gate that reads after this finds the attempt running, and one that read
      // before has marked the call answered
      if (call.answered) {
        throw new IllegalStateException(
            "the gated call of "
                + ic.getMethod().getName()
                + " answered already: this attempt began after it (on another thread) and did"
                + " not run");
      }
      return ic.proceed();
    } finally {
      call.ends.attemptEnded();
    }
  }
}
