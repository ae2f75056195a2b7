package dev.mcpgate.spring;

import dev.mcpgate.mcp.TransactionEnds;
import java.lang.reflect.Method;
import org.aopalliance.intercept.MethodInvocation;

/**
 * The handler's own invocation of an {@code @Idempotent} method, whose transactions' ends {@link
 * ToolExceptions} watches ({@link Ending#watch}): a retry advice's copies of it are it too, a
 * method it calls is not.
 */
final class WatchedInvocation {
  private final Object target;
  private final Method method;

  /** How its transactions ended, and what that makes of what it returned or threw. */
  final TransactionEnds ends = new TransactionEnds();

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
