package dev.mcpgate.quarkus.deployment.review;

import jakarta.interceptor.InterceptorBinding;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * A stand-in for MicroProfile Fault Tolerance's {@code @Retry} placed OUTSIDE
 * {@code @Transactional} (quarkus-smallrye-fault-tolerance is not served to this build): what
 * SmallRye's interceptor does with {@code mp.fault.tolerance.interceptor.priority} set below the
 * transaction interceptor's 200 (so that each attempt gets a transaction of its own, the usual
 * setup for retrying an optimistic lock failure), or what an application's own retry interceptor at
 * such a priority does: it calls {@code ic.proceed()} again on the same invocation.
 */
@InterceptorBinding
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.METHOD, ElementType.TYPE})
public @interface RetryOutsideTransaction {}
