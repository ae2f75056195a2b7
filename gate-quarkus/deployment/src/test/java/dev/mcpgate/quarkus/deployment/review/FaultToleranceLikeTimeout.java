package dev.mcpgate.quarkus.deployment.review;

import jakarta.interceptor.InterceptorBinding;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * A stand-in for MicroProfile Fault Tolerance's {@code @Timeout} (quarkus-smallrye-fault-tolerance
 * is not in this offline repository): same interceptor priority, same synchronous behaviour.
 */
@InterceptorBinding
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.METHOD, ElementType.TYPE})
public @interface FaultToleranceLikeTimeout {}
