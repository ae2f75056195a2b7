package dev.mcpgate.spring;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.reflect.Method;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.aopalliance.intercept.MethodInvocation;
import org.junit.jupiter.api.Test;
import org.springframework.aop.framework.ReflectiveMethodInvocation;

/**
 * Review AB: a retry advice outside the starter's clones the invocation for each attempt, and the
 * clones share one user-attribute map; each attempt's watch is attached under a key made of the
 * clone's identity hash, which two live clones may share. The later attempt's watch then replaces
 * the earlier's under that key, and the earlier attempt's late worker (its call answered, its watch
 * ended) is not refused: it falls back to the latest watch, which is open, and runs (a second
 * charge under the next attempt's claim). Rare (a 31-bit hash), shown here by searching clones for
 * a collision.
 */
class AttributeKeyCollisionReviewTest {
  static final AtomicInteger CHARGES = new AtomicInteger();

  public static class Tools {
    public String charge() {
      CHARGES.incrementAndGet();
      return "charged";
    }
  }

  static final class Invocation extends ReflectiveMethodInvocation {
    Invocation(Object target, Method method) {
      super(target, target, method, new Object[0], target.getClass(), List.of());
    }
  }

  @Test
  void anEarlierAttemptsLateWorkerIsRefusedEvenWhenTwoClonesShareAnIdentityHash() throws Throwable {
    Tools tools = new Tools();
    Invocation original = new Invocation(tools, Tools.class.getMethod("charge"));
    Map<Integer, MethodInvocation> seen = new HashMap<>();
    MethodInvocation first = null;
    MethodInvocation second = null;
    for (int i = 0; i < 2_000_000 && first == null; i++) {
      MethodInvocation clone = original.invocableClone();
      MethodInvocation before = seen.putIfAbsent(System.identityHashCode(clone), clone);
      if (before != null) {
        first = before;
        second = clone;
      }
    }
    seen.clear();
    if (first == null) {
      throw new AssertionError("no identity-hash collision found");
    }
    // attempt 1: watched, its call answered (the time limiter gave up, the retry advice goes on)
    WatchedInvocation one = new WatchedInvocation(first, null);
    one.attachTo(first);
    WatchedInvocation.end(one);
    // attempt 2: watched, running
    WatchedInvocation two = new WatchedInvocation(second, one.ends);
    two.attachTo(second);
    // attempt 1's late worker reaches the innermost advice on another thread
    MethodInvocation late = first;
    assertThatThrownBy(() -> WatchedInvocation.attempt(late, null, false))
        .as("charges after the late worker: %s", CHARGES)
        .isInstanceOf(IllegalStateException.class);
  }
}
