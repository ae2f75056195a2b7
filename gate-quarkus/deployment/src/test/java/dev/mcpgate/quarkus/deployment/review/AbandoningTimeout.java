package dev.mcpgate.quarkus.deployment.review;

import jakarta.interceptor.InterceptorBinding;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * A time limiter of the application's that runs the rest of the chain on a worker thread and gives
 * up waiting after a while (as a Resilience4j-style TimeLimiter, or FT's asynchronous continuation
 * that ArC allows), between the gate and {@code @Transactional}.
 */
@InterceptorBinding
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.METHOD, ElementType.TYPE})
public @interface AbandoningTimeout {}
