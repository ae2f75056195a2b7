package dev.mcpgate.core;

import java.util.ArrayDeque;
import java.util.Collections;
import java.util.Deque;
import java.util.IdentityHashMap;
import java.util.Set;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads an action's failure for a sign that its outcome is unknown, for {@link
 * GatePolicy#isOutcomeUnknown}: the failure and its causes, and the errors a Reactor or Mutiny
 * composite holds, each once (a cause chain may loop); more than {@value #MOST} throwables to read
 * count as unknown. Some failures mean an unknown outcome whatever the policy says: an {@link
 * OutcomeUnknownException} (which the adapters throw too), an interrupt, a cancellation, a timeout
 * while waiting for an answer, a transaction manager's failed commit, and the JVM's own failure
 * (out of memory or stack), which may come after the effect. The frameworks' types are named, not
 * linked: the core depends on none of them.
 */
final class UnknownOutcomes {
  private static final Logger LOG = LoggerFactory.getLogger(UnknownOutcomes.class);

  /** How many throwables are read at most. */
  static final int MOST = 64;

  /**
   * Types (or their subtypes) thrown while waiting for an answer that may still come, or by a
   * commit that may have been carried out.
   */
  private static final Set<String> ALWAYS_UNKNOWN =
      Set.of(
          "java.lang.VirtualMachineError", // out of memory or stack at any point of the action
          "java.lang.InterruptedException",
          "java.io.InterruptedIOException", // a read timeout (SocketTimeoutException) among them
          "java.nio.channels.ClosedByInterruptException",
          "java.util.concurrent.CancellationException",
          "java.util.concurrent.TimeoutException", // Future.get, orTimeout, Reactor, Vert.x
          "java.net.http.HttpTimeoutException", // the JDK's HttpClient (not its connect timeout)
          "io.smallrye.mutiny.TimeoutException", // Uni.await().atMost
          "io.netty.handler.timeout.ReadTimeoutException",
          "io.netty.handler.timeout.WriteTimeoutException",
          "io.quarkiverse.mcp.server.Cancellation$OperationCancellationException",
          // a commit that failed: it may have been carried out (its answer was lost)
          "org.springframework.transaction.TransactionSystemException",
          "org.springframework.transaction.HeuristicCompletionException",
          "jakarta.transaction.RollbackException",
          "jakarta.transaction.HeuristicMixedException",
          "jakarta.transaction.SystemException",
          "javax.transaction.RollbackException",
          "javax.transaction.HeuristicMixedException",
          "javax.transaction.SystemException");

  /** A timeout before anything was sent: nothing happened because of it. */
  private static final String CONNECT_TIMEOUT = "java.net.http.HttpConnectTimeoutException";

  /**
   * Errors of several errors, each one a suppressed exception of it (Mutiny's first one its cause
   * too): Reactor's and Mutiny's. Other throwables' suppressed exceptions are not read: the gate
   * adds its store's failures to the action's that way.
   */
  private static final Set<String> COMPOSITES =
      Set.of("reactor.core.Exceptions$CompositeException", "io.smallrye.mutiny.CompositeException");

  private UnknownOutcomes() {}

  /**
   * @param failure the action's failure
   * @param policySays the policy's {@code outcomeUnknownWhen}; one that throws counts as saying yes
   * @return true when {@code failure}, a cause, or an error of a Reactor composite means the
   *     outcome is unknown; a nested gate's own answer stands for itself ({@link #nestedSays})
   */
  static boolean in(Throwable failure, Predicate<Throwable> policySays) {
    Deque<Throwable> toRead = new ArrayDeque<>();
    Set<Throwable> seen = Collections.newSetFromMap(new IdentityHashMap<>());
    toRead.add(failure);
    int read = 0;
    while (!toRead.isEmpty()) {
      Throwable t = toRead.poll();
      if (!seen.add(t)) {
        continue; // a loop: read once
      }
      if (++read > MOST) {
        return true; // more to read than it reads: one of them may say so
      }
      if (t instanceof GateOutcomeException nested) {
        if (nestedSays(nested)) {
          return true;
        }
        continue; // its causes say why that gate failed, not whether anything ran
      }
      // the library's own signal, whatever the policy's predicate (which replaces the default)
      if (t instanceof OutcomeUnknownException
          || alwaysUnknown(t.getClass())
          || says(policySays, t)) {
        return true;
      }
      if (t.getCause() != null) {
        toRead.add(t.getCause());
      }
      if (COMPOSITES.contains(t.getClass().getName())) {
        for (Throwable each : t.getSuppressed()) {
          toRead.add(each);
        }
      }
    }
    return false;
  }

  /** A nested gate's answer ({@link GateResult#orThrow()}): unknown when it says so. */
  private static boolean nestedSays(GateOutcomeException nested) {
    return nested.result() instanceof GateResult.Failed<?> failed
        && failed.effect() != GateResult.Effect.NO;
  }

  private static boolean alwaysUnknown(Class<?> type) {
    for (Class<?> c = type; c != null && c != Object.class; c = c.getSuperclass()) {
      String name = c.getName();
      if (CONNECT_TIMEOUT.equals(name)) {
        return false;
      }
      if (ALWAYS_UNKNOWN.contains(name)) {
        return true;
      }
    }
    return false;
  }

  private static boolean says(Predicate<Throwable> policySays, Throwable t) {
    try {
      return policySays.test(t);
    } catch (RuntimeException e) {
      LOG.error(
          "the policy's outcomeUnknownWhen threw {} on {}: the outcome counts as unknown and"
              + " the key stays fenced",
          e,
          t.getClass().getName(),
          e);
      return true;
    }
  }
}
