package dev.mcpgate.spring;

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

  /** How its latest transaction ended ({@link Ending}): what a return is read by. */
  int last = Ending.WATCHING;

  /**
   * {@link Ending#COMMITTED} once any of its transactions committed, else {@link Ending#UNKNOWN}
   * once one ended in a state not known, else {@link Ending#WATCHING}: what a failure is read by,
   * for a later attempt's rollback (a retry advice's) does not undo what an earlier one kept.
   */
  int kept = Ending.WATCHING;

  /** What {@link #kept} was before its latest transaction ended: its earlier attempts'. */
  int earlier = Ending.WATCHING;

  /** How many of its transactions were registered for. */
  int transactions;

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
