package dev.mcpgate.mcp;

import dev.mcpgate.core.GatePolicy;
import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a mutating tool handler method (for example a Spring AI {@code @McpTool} method) as gated,
 * with its per-tool policy ({@link ToolPolicy#of(Idempotent)}: the attributes that name a value of
 * the gate's policy are a {@link dev.mcpgate.core.GateSettings}, an empty one inherited). {@link
 * McpGate#gateAnnotated} then gates the matching tool specifications in one call. Matching is by
 * tool name: {@link #tool()}, else the {@code name} of the method's {@code @McpTool} annotation (or
 * of Spring AI's {@code @Tool}, for a tool callback), else the method's name.
 *
 * <pre>{@code
 * @McpTool(name = "refund_order", description = "Refund an order")
 * @Idempotent(retention = "PT24H")
 * public String refund(String orderId, long amountCents) { ... }
 * }</pre>
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.METHOD)
public @interface Idempotent {

  /**
   * @return the tool name, when it is not the {@code @McpTool} name or the method name
   */
  String tool() default "";

  /**
   * @return where the key comes from, in order of precedence
   */
  KeySource[] keySources() default {KeySource.ARGUMENT, KeySource.META};

  /**
   * @return the name of the key argument
   */
  String keyArgument() default ToolPolicy.DEFAULT_KEY_ARGUMENT;

  /**
   * @return the argument names that make the natural key (with {@link KeySource#NATURAL})
   */
  String[] naturalKey() default {};

  /**
   * @return false to run calls without any key ungated instead of refusing them
   */
  boolean required() default true;

  /**
   * @return true to pass the key argument on to the handler
   */
  boolean keepKeyArgument() default false;

  /** {@link #maxResultBytes()}'s default: the gate's own limit. */
  int INHERIT = -1;

  /**
   * @return what the key argument means, when it is not a fresh value per request (see {@link
   *     ToolPolicy#keyDescription()}); empty: "a new unique value for each new request"
   */
  String keyDescription() default "";

  /**
   * @return how long results are replayed, as an ISO-8601 duration ("PT2H"); empty: the gate's
   */
  String retention() default "";

  /**
   * @return how long an attempt holds the key, as an ISO-8601 duration; empty: the gate's
   */
  String lease() default "";

  /**
   * @return how often a running attempt's lease is renewed, as an ISO-8601 duration ("PT0S" for
   *     never); empty: the gate's (or a quarter of the lease set here)
   */
  String leaseRenewal() default "";

  /**
   * @return how long a duplicate waits on a running attempt, as an ISO-8601 duration; empty: the
   *     gate's ({@link #inFlight()} REFUSE is a wait of zero)
   */
  String inFlightWait() default "";

  /**
   * @return the largest encoded result stored, in bytes; {@link #INHERIT}: the gate's
   */
  int maxResultBytes() default INHERIT;

  /**
   * @return how long a key whose outcome is unknown stays fenced, as an ISO-8601 duration; empty:
   *     the gate's (or the retention set here)
   */
  String unknownFence() default "";

  /**
   * @return what an {@code isError} result does to the claim: {@code failureMode =
   *     FailureMode.STORE} or {@code RELEASE}; left out (empty), the gate's own failure mode
   */
  GatePolicy.FailureMode[] failureMode() default {};

  /**
   * @return more argument names left out of the argument hash (narrowing it: be sure)
   */
  String[] ignoredArguments() default {};

  /**
   * @return what a call does while another attempt with its key runs: {@link InFlight#WAIT}
   *     (default) waits the gate's in-flight wait for that attempt's result, {@link
   *     InFlight#REFUSE} answers {@code idempotency_key_in_progress} at once
   */
  InFlight inFlight() default InFlight.WAIT;
}
