package dev.mcpgate.spring;

import dev.mcpgate.mcp.TransactionEnds;
import java.lang.reflect.Method;
import org.aopalliance.intercept.MethodInvocation;

/**
 * An invocation of an {@code @Idempotent} method not made inside another of the handler's call (the
 * handler's own, or a later one: a retry advice outside the starter's calls the method again),
 * whose transactions' ends {@link ToolExceptions} watches ({@link Ending#watch}): a copy of it made
 * by a retry advice inside the starter's is it too, a method it calls is not, nor is the same
 * method called by itself.
 */
final class WatchedInvocation {
  private final Object target;
  private final Method method;

  /** How its transactions ended, and what that makes of what it returned or threw. */
  final TransactionEnds ends;

  /**
   * True while an attempt of it runs inside its transaction's advice: a call of the same method on
   * the same bean then is the method calling itself (its transaction is not the invocation's), not
   * a retry's next attempt, which begins after the last one returned. Read on the calling thread.
   */
  volatile boolean running;

  /**
   * False once it threw, returned anything but a Mono or Flux, its Mono ended or its Flux failed: a
   * retry advice may call it again. A Flux that completes leaves it open: a call of the same method
   * after that is read as a step of it.
   */
  private volatile boolean open = true;

  /**
   * @param before the ends of the handler call's previous invocation not inside another (a retry
   *     advice outside the starter's calls the method again: an earlier attempt), or null
   */
  WatchedInvocation(MethodInvocation invocation, TransactionEnds before) {
    this.ends = new TransactionEnds(before);
    this.target = invocation.getThis();
    this.method = invocation.getMethod();
  }

  /** Notes that {@code watch}, if any, ended. */
  static void end(WatchedInvocation watch) {
    if (watch != null) {
      watch.open = false;
    }
  }

  /**
   * @return true for a noted invocation not inside this one that is a step of its action, not a
   *     retry advice's next call of it: another method (called from its Publisher, or on a thread
   *     it started), or the same one called while it runs (from its Mono or Flux)
   */
  boolean isStep(MethodInvocation invocation) {
    return open || !is(invocation);
  }

  /**
   * @return true for this invocation, or a retry's copy of it
   */
  boolean is(MethodInvocation invocation) {
    return invocation.getThis() == target && invocation.getMethod().equals(method);
  }
}
