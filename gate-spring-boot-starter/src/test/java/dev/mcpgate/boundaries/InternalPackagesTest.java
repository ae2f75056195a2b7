package dev.mcpgate.boundaries;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import dev.mcpgate.core.IdempotencyGate;
import org.junit.jupiter.api.Test;

/**
 * Internal means internal: no class outside gate-core depends on {@code dev.mcpgate.core.internal}
 * or a package below it (gate-core's {@code Checks}, its engine). Here because this module's test
 * classpath holds every module's jar (some in test scope for this test only); a class counts as
 * gate-core's by where it was loaded from, not by its package, so another module's class in a
 * {@code dev.mcpgate.core} package would be caught too.
 */
class InternalPackagesTest {
  private static final String INTERNAL = "dev.mcpgate.core.internal..";

  /** Every module's main classes: no test classes, and no test-jar (gate-jdbc's is on the path). */
  private static final JavaClasses ALL =
      new ClassFileImporter()
          .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
          .withImportOption(location -> !location.contains("-tests.jar"))
          .importPackages("dev.mcpgate");

  /** Where gate-core's classes come from: its jar, or its target/classes in a reactor build. */
  private static final String GATE_CORE = root(ALL.get(IdempotencyGate.class));

  static final ArchRule ONLY_GATE_CORE_USES_ITS_INTERNALS =
      noClasses()
          .that(DescribedPredicate.describe("are outside gate-core", c -> !inGateCore(c)))
          .should()
          .dependOnClassesThat()
          .resideInAPackage(INTERNAL)
          .because(
              "dev.mcpgate.core.internal is not API, not even for MCP Gate's other modules (its"
                  + " package-info); they use the JDK or a public SPI class such as"
                  + " StoreArguments");

  private static String uri(JavaClass c) {
    return c.getSource().orElseThrow().getUri().toString();
  }

  private static String root(JavaClass c) {
    String uri = uri(c);
    String file = c.getName().replace('.', '/') + ".class";
    assertThat(uri).endsWith(file);
    return uri.substring(0, uri.length() - file.length());
  }

  private static boolean inGateCore(JavaClass c) {
    return c.getSource().isPresent() && uri(c).startsWith(GATE_CORE);
  }

  @Test
  void theCheckSeesEveryModule() {
    assertThat(ALL.contain("dev.mcpgate.core.internal.Checks")).isTrue();
    for (String type :
        new String[] {
          "dev.mcpgate.jdbc.JdbcIdempotencyStore",
          "dev.mcpgate.redis.RedisIdempotencyStore",
          "dev.mcpgate.dynamodb.DynamoDbIdempotencyStore",
          "dev.mcpgate.mcp.McpGate",
          "dev.mcpgate.spring.McpGateAutoConfiguration",
          "dev.mcpgate.micrometer.GateMetrics",
          "dev.mcpgate.opentelemetry.GateTelemetry",
          "dev.mcpgate.cache.ReplayCache",
          "dev.mcpgate.testkit.GateChecks",
          "dev.mcpgate.store.tck.IdempotencyStoreContract"
        }) {
      assertThat(ALL.contain(type)).as(type).isTrue();
      assertThat(inGateCore(ALL.get(type))).as(type).isFalse();
    }
    assertThat(ALL.contain("dev.mcpgate.boundaries.violation.ImportsGateCoreInternals")).isFalse();
  }

  @Test
  void noModuleButGateCoreUsesItsInternals() {
    ONLY_GATE_CORE_USES_ITS_INTERNALS.check(ALL);
  }

  @Test
  void theRuleCatchesAClassOutsideGateCoreThatImportsItsInternals() {
    JavaClasses withViolation =
        new ClassFileImporter()
            .importPackages("dev.mcpgate.boundaries.violation", "dev.mcpgate.core.internal");
    assertThatThrownBy(() -> ONLY_GATE_CORE_USES_ITS_INTERNALS.check(withViolation))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("ImportsGateCoreInternals")
        .hasMessageContaining("dev.mcpgate.core.internal.Checks");
  }
}
