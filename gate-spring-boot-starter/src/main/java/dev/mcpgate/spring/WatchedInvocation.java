package dev.mcpgate.spring;

import java.lang.reflect.Method;
import org.aopalliance.intercept.MethodInvocation;

/**
 * The handler's own invocation of an {@code @Idempotent} method, whose transaction's end {@link
 * ToolExceptions} watches ({@link Ending#watch}): a retry advice's copies of it are it too, a
 * method it calls is not.
 */
final class WatchedInvocation {
  private final Object target;
  private final Method method;

  /** How its transaction ended ({@link Ending}), and how many of its transactions were watched. */
  final int[] end = {Ending.WATCHING, 0};

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
