package dev.mcpgate.quarkus.deployment.review;

import jakarta.interceptor.InterceptorBinding;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * An application's own "unit of work" interceptor binding: begins a JTA transaction around the
 * method, then writes an audit row and commits; when the audit fails, rolls everything back (see
 * {@link UnitOfWorkTransactions}). Review R.
 */
@InterceptorBinding
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.METHOD, ElementType.TYPE})
public @interface UnitOfWork {}
