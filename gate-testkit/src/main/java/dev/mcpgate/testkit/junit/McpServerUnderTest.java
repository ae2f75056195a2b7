package dev.mcpgate.testkit.junit;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks the field, or the method without parameters, that gives the server under test to {@link
 * McpGateChecks}: an initialized {@code McpSyncClient}, or (with the Spring support on the class
 * path) a running Spring {@code ApplicationContext}, to which the kit connects a client. Static or
 * not. Without one, a class run by Spring's {@code SpringExtension} (for example a
 * {@code @SpringBootTest(webEnvironment = RANDOM_PORT)}) gives its application context.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.FIELD, ElementType.METHOD})
public @interface McpServerUnderTest {}
