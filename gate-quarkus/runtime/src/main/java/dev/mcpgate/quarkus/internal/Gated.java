package dev.mcpgate.quarkus.internal;

import jakarta.interceptor.InterceptorBinding;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Binds {@link GateInterceptor}: the deployment module adds it, at build time, to each
 * {@code @Tool} method that carries {@link dev.mcpgate.mcp.Idempotent @Idempotent}. Not for
 * application code.
 */
@InterceptorBinding
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.TYPE, ElementType.METHOD})
public @interface Gated {}
