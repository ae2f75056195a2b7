package dev.mcpgate.spring;

import dev.mcpgate.mcp.TransactionEnds;
import java.lang.reflect.Method;
import org.aopalliance.intercept.MethodInvocation;

/**
 * The handler's own invocation of an {@code @Idempotent} method, whose transactions' ends {@link
 * ToolExceptions} watches ({@link Ending#watch}): a retry advice's copies of it are it too, a
 * method it calls is not, nor is the same method called by itself.
 */
final class WatchedInvocation {
  private final Object target;
  private final Method method;

  /** How its transactions ended, and what that makes of what it returned or threw. */
  final TransactionEnds ends = new TransactionEnds();

  /**
   * True while an attempt of it runs inside its transaction's advice: a call of the same method on
   * the same bean then is the method calling itself (its transaction is not the invocation's), not
   * a retry's next attempt, which begins after the last one returned. Read on the calling thread.
   */
  volatile boolean running;

  /** Whether its latest attempt threw: only then may a retry advice call it again. */
  volatile boolean threw;

  WatchedInvocation(MethodInvocation invocation) {
    this.target = invocation.getThis();
    this.method = invocation.getMethod();
  }

  /**
   * @return true for this invocation, or a retry's copy of it
   */
  boolean is(MethodInvocation invocation) {
    return invocation.getThis() == target && invocation.getMethod().equals(method);
  }
}
