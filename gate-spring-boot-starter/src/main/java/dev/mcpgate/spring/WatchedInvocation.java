package dev.mcpgate.spring;

import dev.mcpgate.mcp.TransactionEnds;
import java.lang.reflect.Method;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Map;
import org.aopalliance.intercept.MethodInvocation;
import org.springframework.aop.ProxyMethodInvocation;

/**
 * An invocation of an {@code @Idempotent} method not made inside another of the handler's call (the
 * handler's own, or a later one: a retry advice outside the starter's calls the method again),
 * whose transactions' ends {@link ToolExceptions} watches ({@link Ending#watch}): a copy of it made
 * by a retry advice inside the starter's is it too, a method it calls is not, nor is the same
 * method called by itself.
 */
final class WatchedInvocation {
  private static final String ATTRIBUTE = WatchedInvocation.class.getName();

  /**
   * The user attribute of the watches by the invocation (copy) each was attached to, by identity.
   */
  private static final String OWN = ATTRIBUTE + ".own";

  private final Object target;
  private final Method method;

  /** How its transactions ended, and what that makes of what it returned or threw. */
  final TransactionEnds ends;

  /**
   * The thread an attempt of it runs on, innermost, or null: a call of the same method on the same
   * bean on that thread then is the method calling itself (its transaction is not the
   * invocation's), not a retry's next attempt, which begins after the last one returned.
   */
  private volatile Thread running;

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

  /**
   * Runs an attempt of a noted method, innermost (inside {@code @Transactional}'s advice, if any):
   * an attempt of {@code here} (the handler's thread's watch) or of the watch attached to the
   * invocation (an advice between went on on another thread) counts as running until it ends, and
   * registers for its transaction's end where {@code transactions} (spring-tx is present); one that
   * begins after its watch ended is refused, for it would run outside the call's claim. Another
   * method, or the method calling itself, just runs.
   */
  static Object attempt(MethodInvocation invocation, WatchedInvocation here, boolean transactions)
      throws Throwable {
    WatchedInvocation watch = here != null ? here : attached(invocation);
    Thread thread = Thread.currentThread();
    if (watch == null || !watch.is(invocation) || watch.running == thread) {
      return invocation.proceed(); // not it, or it calling itself (nested)
    }
    watch.running = thread;
    watch.ends.attemptBegan();
    try {
      if (transactions) {
        Ending.watch(watch);
      }
      if (!watch.open) { // read after counting: a gate reading after this finds it running
        throw new IllegalStateException(
            "the gated call of "
                + invocation.getMethod().getName()
                + " answered already: this attempt began after it (on another thread) and did not"
                + " run");
      }
      return invocation.proceed();
    } finally {
      watch.ends.attemptEnded();
      watch.running = null;
    }
  }

  /**
   * Attaches this to {@code invocation} as user attributes, which its copies share: an advice
   * between the starter's and {@code @Transactional}'s may run the rest of its chain on another
   * thread, where the handler's thread-local is not set.
   */
  void attachTo(MethodInvocation invocation) {
    if (invocation instanceof ProxyMethodInvocation p) {
      p.setUserAttribute(ATTRIBUTE, this);
      if (!(p.getUserAttribute(OWN) instanceof Map<?, ?>)) {
        p.setUserAttribute(OWN, Collections.synchronizedMap(new IdentityHashMap<>()));
      }
      @SuppressWarnings("unchecked")
      Map<MethodInvocation, WatchedInvocation> own =
          (Map<MethodInvocation, WatchedInvocation>) p.getUserAttribute(OWN);
      own.put(invocation, this);
    }
  }

  /**
   * @return the watch {@linkplain #attachTo attached} to {@code invocation} itself (a retry advice
   *     outside the starter's copies each attempt, and the copies share their attributes), else the
   *     latest attached (a copy made inside the starter's advice), or null
   */
  static WatchedInvocation attached(MethodInvocation invocation) {
    if (!(invocation instanceof ProxyMethodInvocation p)) {
      return null;
    }
    if (p.getUserAttribute(OWN) instanceof Map<?, ?> own
        && own.get(invocation) instanceof WatchedInvocation w) {
      return w;
    }
    return p.getUserAttribute(ATTRIBUTE) instanceof WatchedInvocation w ? w : null;
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
