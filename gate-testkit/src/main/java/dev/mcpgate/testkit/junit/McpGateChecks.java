package dev.mcpgate.testkit.junit;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Runs the kit's checks on every write tool of the server under test: a test class with this
 * annotation that implements {@link GatedToolsTest} gets, for each tool that is not read-only, a
 * retry test, a concurrent-first-calls test and an arrival-order test, plus a survey test that
 * fails on ungated writes, and a report in {@link #reportDir()}.
 *
 * <pre>{@code
 * @McpGateChecks
 * class OrderToolsGateTest implements GatedToolsTest {
 *   @McpServerUnderTest
 *   static McpSyncClient client = ...;       // or a method, or a Spring ApplicationContext
 *
 *   @Override
 *   public void configureGateChecks(GateChecks checks) {
 *     checks.tool("refund_order").probe("refunds", payments::refundCount)
 *         .expectFirstCallChange("refunds", 1);
 *   }
 * }
 * }</pre>
 *
 * JUnit runs only classes with tests in them: the tests come from {@link GatedToolsTest}, which
 * also registers the extension, so this annotation is where the options go (and where a reader sees
 * what the class is for).
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.TYPE)
@ExtendWith(McpGateChecksExtension.class)
public @interface McpGateChecks {

  /**
   * @return how many concurrent copies each concurrency check sends
   */
  int concurrentCopies() default 8;

  /**
   * @return whether the survey test fails when a write tool is neither gated nor declared safe
   */
  boolean requireGatedWrites() default true;

  /**
   * @return true (the default) to show a check that does not apply (no arrival-order scenario, a
   *     tool left out with {@code skip}) as an aborted test with its reason; false to leave it out
   *     of the tests and name it in the report only, for builds that fail on skipped tests
   */
  boolean showSkippedChecks() default true;

  /**
   * @return where the report goes, one file per test class ({@code <class>.txt}); "" for none
   */
  String reportDir() default "target/mcpgate-checks";

  /**
   * @return the tenant that a client made by the kit (Spring) sends in the starter's {@code
   *     mcpgate.tenant.header}, when the application reads the tenant from a header
   */
  String tenant() default "mcpgate-checks";
}
