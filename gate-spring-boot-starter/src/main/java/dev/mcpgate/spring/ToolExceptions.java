package dev.mcpgate.spring;

import dev.mcpgate.core.GatePolicy;
import dev.mcpgate.core.OutcomeUnknownException;
import dev.mcpgate.mcp.Idempotent;
import dev.mcpgate.mcp.McpGate;
import io.modelcontextprotocol.server.McpServerFeatures;
import io.modelcontextprotocol.server.McpStatelessServerFeatures;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.util.UUID;
import java.util.function.BiFunction;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.reactivestreams.Publisher;
import org.springframework.aop.framework.Advised;
import org.springframework.aop.framework.autoproxy.AbstractBeanFactoryAwareAdvisingPostProcessor;
import org.springframework.aop.support.DefaultPointcutAdvisor;
import org.springframework.aop.support.annotation.AnnotationMatchingPointcut;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.util.ClassUtils;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * Lets the gate see what an {@code @Idempotent} tool method did. Spring AI's method callbacks
 * answer every exception of a tool method with an error result, so the gate saw a failure and
 * released the key, though the method had said its outcome was unknown ({@code
 * OutcomeUnknownException}, what the policy's {@code outcomeUnknownWhen} names, an interrupt): a
 * retry with the same key ran the effect again. This post-processor proxies each bean with {@code
 * Idempotent} methods (before Spring AI's scanner takes it) to note, for the call being handled,
 * what such a method threw, or that it returned; {@link #seeing} wraps a sync handler so that an
 * error result answered for an exception that means the outcome is unknown is thrown to the gate
 * instead, which fences the key ({@link #seeingAsync} for async handlers). An error result after
 * the method returned (its value could not be converted to a result) fences the key too: its effect
 * may have happened. The advice is outermost, so what a {@code @Transactional} proxy's commit
 * throws is noted as the method's. Other exceptions keep Spring AI's error result. A class that is
 * final or has a final or private {@code Idempotent} method is not proxied ({@link #isEligible}):
 * every error result of its tools fences the key ({@link UnseenToolObjects}). The note follows the
 * call onto the Reactor scheduler tasks scheduled while the handler is subscribed (Spring AI runs a
 * tool callback of an async server on one); a method run on a thread of the application's own is
 * not seen: there the error result stands.
 */
final class ToolExceptions extends AbstractBeanFactoryAwareAdvisingPostProcessor
    implements DisposableBean {
  private static final long serialVersionUID = 1L;

  /** This post-processor's bean name. */
  static final String BEAN = "mcpGateToolExceptions";

  /**
   * The note of the call being handled: at 0, null while no noted method ran, the throwable a
   * method threw, or {@link #RETURNED}; at 1, the {@link WatchedInvocation} of the latest noted
   * invocation not inside another.
   */
  private final transient ThreadLocal<Object[]> thrown = new ThreadLocal<>();

  private final transient ObjectProvider<McpGate> gate;

  /** The key of this instance's Reactor schedule hook, once installed; null before. */
  private transient volatile String scheduleHook;

  /** A noted method returned (a value that is not an error result of its own). */
  private static final Object RETURNED = new Object();

  /** The handler's own invocation of a noted method, while it runs; null in any other. */
  private final transient ThreadLocal<WatchedInvocation> ending = new ThreadLocal<>();

  /** Innermost, inside {@code @Transactional}'s advice: {@link WatchedInvocation#attempt}. */
  private final transient DefaultPointcutAdvisor inside;

  ToolExceptions(ObjectProvider<McpGate> gate) {
    this.gate = gate;
    this.advisor =
        new DefaultPointcutAdvisor(
            new AnnotationMatchingPointcut(null, Idempotent.class, true),
            (MethodInterceptor) this::noting);
    setProxyTargetClass(true); // Spring AI invokes the class's own Method on the bean
    // outermost on a bean proxied already (@Transactional): what its commit throws is noted too
    setBeforeExistingAdvisors(true);
    boolean transactions = ClassUtils.isPresent(Ending.MANAGER, getClass().getClassLoader());
    this.inside =
        new DefaultPointcutAdvisor(
            new AnnotationMatchingPointcut(null, Idempotent.class, true),
            (MethodInterceptor)
                invocation -> WatchedInvocation.attempt(invocation, ending.get(), transactions));
  }

  /** Also adds {@link #inside} last, inside a {@code @Transactional} advice already there. */
  @Override
  public Object postProcessAfterInitialization(Object bean, String beanName) {
    Object proxy = super.postProcessAfterInitialization(bean, beanName);
    if (proxy instanceof Advised advised && advised.indexOf(advisor) >= 0) {
      advised.addAdvisor(inside);
    }
    return proxy;
  }

  /**
   * A class whose {@code @Idempotent} method CGLIB cannot override (final or private) is left as it
   * is: its proxy would run that method on an empty instance. {@link UnseenToolObjects} names its
   * tools, every error result of which then fences the key.
   */
  @Override
  protected boolean isEligible(Class<?> targetClass) {
    return super.isEligible(targetClass) && UnseenToolObjects.proxiable(targetClass);
  }

  private Object noting(MethodInvocation invocation) throws Throwable {
    Object[] slot = thrown.get();
    WatchedInvocation previous = slot == null ? null : (WatchedInvocation) slot[1];
    if (slot != null && ending.get() == null && previous != null && previous.isStep(invocation)) {
      return invocation.proceed(); // part of the handler's invocation's action: it speaks for it
    }
    // the handler's own invocation watches how its transaction ends, not one it calls; one after it
    // (a retry advice outside this one calls it again) counts what it kept as an earlier attempt's
    WatchedInvocation watch =
        slot == null || ending.get() != null
            ? null
            : new WatchedInvocation(invocation, previous == null ? null : previous.ends);
    Object result;
    try {
      if (watch != null) {
        slot[1] = watch;
        ending.set(watch);
        watch.attachTo(invocation);
      }
      result = invocation.proceed();
    } catch (Throwable t) {
      if (slot != null) {
        slot[0] = failure(t, watch);
      }
      throw t;
    } finally {
      if (watch != null) {
        ending.remove();
      }
    }
    if (slot == null) {
      return result;
    }
    // a reactive tool method fails its Mono, Flux or other Publisher instead of throwing; its
    // transaction (a transaction manager's that is not reactive) ended when it returned
    boolean flux =
        result instanceof Flux<?>
            || result instanceof Publisher<?> // Spring AI reads any Publisher
                && invocation.getMethod().getReturnType().isAssignableFrom(Flux.class);
    if (!flux && !(result instanceof Mono<?>)) {
      WatchedInvocation.end(watch); // before it is read: nothing of it may begin after
    }
    // it returned: what a method it called threw is not its failure
    slot[0] = outcome(result, watch);
    if (result instanceof Mono<?> mono) {
      return mono.doOnSuccess(v -> slot[0] = lastOutcome(v, watch))
          .doOnError(t -> slot[0] = failure(t, watch));
    }
    if (flux) {
      return Flux.from((Publisher<?>) result)
          .doOnNext(v -> slot[0] = outcome(v, watch))
          .doOnError(t -> slot[0] = failure(t, watch));
    }
    return result;
  }

  /** {@link #outcome}, the invocation's last: a retry advice may call it again now. */
  private static Object lastOutcome(Object value, WatchedInvocation watch) {
    WatchedInvocation.end(watch);
    return outcome(value, watch);
  }

  /**
   * @return the note of a method that returned {@code value}: {@link #RETURNED}; null for an error
   *     result of its own (it says it failed); {@link Fenced} when the watched invocation's
   *     transactions say the outcome is unknown ({@link dev.mcpgate.mcp.TransactionEnds#returned})
   */
  private static Object outcome(Object value, WatchedInvocation watch) {
    boolean ownError = value instanceof CallToolResult r && Boolean.TRUE.equals(r.isError());
    OutcomeUnknownException fence = watch == null ? null : watch.ends.returned(ownError);
    return fence != null ? new Fenced(fence) : ownError ? null : RETURNED;
  }

  /**
   * @return the note of a method that threw {@code t}: {@link Fenced} when a transaction of the
   *     watched invocation committed, or may have (any attempt's), else {@code t}
   */
  private static Throwable failure(Throwable t, WatchedInvocation watch) {
    WatchedInvocation.end(watch); // a retry advice may call it again now; nothing of it may begin
    OutcomeUnknownException fence = watch == null ? null : watch.ends.threw(t);
    return fence != null ? new Fenced(fence) : t;
  }

  /**
   * The same specification, its handler {@linkplain #seeing seeing} what its method throws; {@code
   * blind} for a tool whose method is called on an object not proxied ({@link UnseenToolObjects}),
   * every error result of which counts as unknown.
   */
  McpServerFeatures.SyncToolSpecification seen(
      McpServerFeatures.SyncToolSpecification spec, boolean blind) {
    return new McpServerFeatures.SyncToolSpecification(
        spec.tool(), seeing(spec.callHandler(), blind));
  }

  /** The same specification, its handler {@linkplain #seeing seeing} what its method throws. */
  McpStatelessServerFeatures.SyncToolSpecification seen(
      McpStatelessServerFeatures.SyncToolSpecification spec, boolean blind) {
    return new McpStatelessServerFeatures.SyncToolSpecification(
        spec.tool(), seeing(spec.callHandler(), blind));
  }

  /**
   * The same specification, its handler {@linkplain #seeingAsync seeing} what its method throws.
   */
  McpServerFeatures.AsyncToolSpecification seen(
      McpServerFeatures.AsyncToolSpecification spec, boolean blind) {
    return new McpServerFeatures.AsyncToolSpecification(
        spec.tool(), seeingAsync(spec.callHandler(), blind));
  }

  /**
   * The same specification, its handler {@linkplain #seeingAsync seeing} what its method throws.
   */
  McpStatelessServerFeatures.AsyncToolSpecification seen(
      McpStatelessServerFeatures.AsyncToolSpecification spec, boolean blind) {
    return new McpStatelessServerFeatures.AsyncToolSpecification(
        spec.tool(), seeingAsync(spec.callHandler(), blind));
  }

  /**
   * @return {@code handler}, throwing what its {@code @Idempotent} method threw when the handler
   *     answered it with an error result and it means the outcome is unknown
   */
  <X> BiFunction<X, CallToolRequest, CallToolResult> seeing(
      BiFunction<X, CallToolRequest, CallToolResult> handler, boolean blind) {
    return (exchange, request) -> {
      Object[] outer = thrown.get();
      Object[] slot = new Object[2];
      thrown.set(slot);
      CallToolResult result;
      try {
        result = handler.apply(exchange, request);
      } catch (RuntimeException e) {
        throw slot[0] instanceof Fenced f ? f : e;
      } finally {
        restore(outer);
      }
      return checked(result, slot[0], blind);
    };
  }

  /**
   * Like {@link #seeing}, for an async handler: what its method does while the handler's {@code
   * Mono} is subscribed on the gate's thread (Spring AI calls a method at subscription), or in a
   * Reactor scheduler task scheduled then (a tool callback's {@code subscribeOn}), is noted, and an
   * error result for an unknown outcome fails the {@code Mono} with it.
   */
  <X> BiFunction<X, CallToolRequest, Mono<CallToolResult>> seeingAsync(
      BiFunction<X, CallToolRequest, Mono<CallToolResult>> handler, boolean blind) {
    followingScheduledTasks();
    return (exchange, request) -> {
      Object[] slot = new Object[2];
      Mono<CallToolResult> handled = handler.apply(exchange, request);
      Publisher<CallToolResult> noting =
          subscriber -> {
            Object[] outer = thrown.get();
            thrown.set(slot);
            try {
              handled.subscribe(subscriber);
            } finally {
              restore(outer);
            }
          };
      return Mono.fromDirect(noting)
          .onErrorMap(e -> slot[0] instanceof Fenced f ? f : e)
          .map(result -> checked(result, slot[0], blind));
    };
  }

  /**
   * Installs, once, a Reactor schedule hook that carries the note of the call being handled into
   * the tasks scheduled while it is set; a task scheduled without one is left as it is.
   */
  private void followingScheduledTasks() {
    if (scheduleHook != null) {
      return;
    }
    synchronized (this) {
      if (scheduleHook == null) {
        // unique per instance (an identity hash may repeat: a second hook would replace the first)
        String key = ToolExceptions.class.getName() + "#" + UUID.randomUUID();
        Schedulers.onScheduleHook(key, this::carryingTheNote);
        scheduleHook = key;
      }
    }
  }

  private Runnable carryingTheNote(Runnable task) {
    Object[] slot = thrown.get();
    if (slot == null) {
      return task;
    }
    return () -> {
      Object[] outer = thrown.get();
      thrown.set(slot);
      try {
        task.run();
      } finally {
        restore(outer);
      }
    };
  }

  /** Removes the schedule hook, if one was installed. */
  @Override
  public void destroy() {
    String key = scheduleHook;
    if (key != null) {
      Schedulers.resetOnScheduleHook(key);
      scheduleHook = null;
    }
  }

  private CallToolResult checked(CallToolResult result, Object noted, boolean blind) {
    if (noted instanceof Fenced f) { // its answer does not say what happened: neither does the gate
      throw f;
    }
    if (result == null || !Boolean.TRUE.equals(result.isError())) {
      return result;
    }
    if (noted == null && blind) {
      throw new OutcomeUnknownException(
          "the tool's method is called on an object that is not its Spring bean, so what it threw"
              + " is not known: its effect may have happened");
    }
    if (noted == null) {
      return result;
    }
    if (noted == RETURNED) {
      throw new OutcomeUnknownException(
          "the tool's method returned, but its call was answered with an error result (its value"
              + " could not be made a result): its effect may have happened");
    }
    Throwable t = (Throwable) noted;
    if (unknown(t)) {
      throw t instanceof RuntimeException e
          ? e
          : new OutcomeUnknownException("the tool's method threw " + t, t);
    }
    return result;
  }

  /**
   * The unknown outcome the handler's method's transactions make of what it returned or threw
   * ({@link dev.mcpgate.mcp.TransactionEnds}), thrown to the gate whatever the handler answered.
   */
  private static final class Fenced extends OutcomeUnknownException {
    private static final long serialVersionUID = 1L;

    Fenced(OutcomeUnknownException fence) {
      super(fence.getMessage(), fence.getCause());
    }
  }

  private void restore(Object[] outer) {
    if (outer == null) {
      thrown.remove();
    } else {
      thrown.set(outer);
    }
  }

  /**
   * The rule of the gate the tools are gated by (the {@link McpGate} bean's, which may wrap a gate
   * that is not a bean): its policy, its causes, interrupts and cancellations among them.
   */
  private boolean unknown(Throwable t) {
    McpGate g = gate.getIfAvailable();
    return (g != null ? g.policy() : GatePolicy.defaults()).isOutcomeUnknown(t);
  }
}
