package dev.mcpgate.boundaries;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaCall;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import org.junit.jupiter.api.Test;

/**
 * Every thread the library starts is one a caller could have given instead: no class of a runtime
 * module constructs a {@link Thread} but {@code DaemonThreads} (the named daemons used when no
 * executor is given), and none calls an {@link Executors} factory without a {@link ThreadFactory}
 * (which would start unnamed threads of the JDK's default factory). The test-support modules
 * (gate-store-tck, gate-testkit) run in tests and are left out. Here because this module's test
 * classpath holds every module's jar.
 */
class LibraryThreadsTest {
  private static final String[] RUNTIME = {
    "dev.mcpgate.core..",
    "dev.mcpgate.jdbc..",
    "dev.mcpgate.redis..",
    "dev.mcpgate.dynamodb..",
    "dev.mcpgate.mcp..",
    "dev.mcpgate.spring..",
    "dev.mcpgate.micrometer..",
    "dev.mcpgate.opentelemetry..",
    "dev.mcpgate.cache.."
  };

  private static final JavaClasses ALL =
      new ClassFileImporter()
          .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
          .withImportOption(location -> !location.contains("-tests.jar"))
          .importPackages("dev.mcpgate");

  private static final DescribedPredicate<JavaCall<?>> THREAD_CONSTRUCTOR =
      DescribedPredicate.describe(
          "a constructor of java.lang.Thread",
          call ->
              call.getTargetOwner().isEquivalentTo(Thread.class)
                  && call.getName().equals("<init>"));

  private static final DescribedPredicate<JavaCall<?>> EXECUTORS_WITHOUT_FACTORY =
      DescribedPredicate.describe(
          "an Executors factory without a ThreadFactory",
          call ->
              call.getTargetOwner().isEquivalentTo(Executors.class)
                  && call.getName().startsWith("new")
                  && call.getTarget().getRawParameterTypes().stream()
                      .noneMatch(t -> t.isEquivalentTo(ThreadFactory.class)));

  static final ArchRule NO_THREAD_BUT_DAEMON_THREADS =
      noClasses()
          .that()
          .resideInAnyPackage(RUNTIME)
          .and()
          .doNotHaveFullyQualifiedName("dev.mcpgate.core.spi.DaemonThreads")
          .should()
          .callCodeUnitWhere(THREAD_CONSTRUCTOR)
          .orShould()
          .callCodeUnitWhere(EXECUTORS_WITHOUT_FACTORY)
          .because(
              "a thread the library starts comes from DaemonThreads when the caller gave no"
                  + " executor or scheduler of its own (IdempotencyGate.Builder.executor, say)");

  @Test
  void theCheckSeesTheRuntimeModules() {
    for (String type :
        new String[] {
          "dev.mcpgate.core.spi.DaemonThreads",
          "dev.mcpgate.jdbc.JdbcAuditSink",
          "dev.mcpgate.redis.RedisIdempotencyStore",
          "dev.mcpgate.dynamodb.DynamoDbIdempotencyStore",
          "dev.mcpgate.spring.McpGateAutoConfiguration"
        }) {
      assertThat(ALL.contain(type)).as(type).isTrue();
    }
  }

  @Test
  void noRuntimeClassStartsAThreadButDaemonThreads() {
    NO_THREAD_BUT_DAEMON_THREADS.check(ALL);
  }

  @Test
  void theRuleCatchesAClassThatStartsThreadsOfItsOwn() {
    JavaClasses withViolation =
        new ClassFileImporter().importPackages("dev.mcpgate.boundaries.violation");
    ArchRule onFixtures =
        noClasses()
            .that()
            .resideInAPackage("dev.mcpgate.boundaries.violation")
            .should()
            .callCodeUnitWhere(THREAD_CONSTRUCTOR)
            .orShould()
            .callCodeUnitWhere(EXECUTORS_WITHOUT_FACTORY);
    assertThatThrownBy(() -> onFixtures.check(withViolation))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("StartsItsOwnThreads.writer")
        .hasMessageContaining("StartsItsOwnThreads.pool");
  }
}
