package dev.mcpgate.boundaries;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaConstructorCall;
import com.tngtech.archunit.core.domain.JavaField;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.SimpleConditionEvent;
import java.util.Collection;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * No state per JVM: every static field of a library class is final, and no static initializer makes
 * a mutable container (a {@code java.util} map or collection, an atomic, a {@code ThreadLocal}) to
 * keep state in. Two gates in one JVM share nothing, and nothing outlives a gate. Constants built
 * by factories ({@code Map.of}, {@code List.copyOf}) are fine. Here because this module's test
 * classpath holds every module's jar.
 */
class NoStaticStateTest {
  private static final JavaClasses ALL =
      new ClassFileImporter()
          .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
          .withImportOption(location -> !location.contains("-tests.jar"))
          .importPackages("dev.mcpgate");

  static final ArchCondition<JavaClass> KEEP_NO_STATIC_STATE =
      new ArchCondition<>("keep no state in static fields") {
        @Override
        public void check(JavaClass type, ConditionEvents events) {
          for (JavaField field : type.getFields()) {
            if (field.getModifiers().contains(JavaModifier.STATIC)
                && !field.getModifiers().contains(JavaModifier.FINAL)) {
              events.add(
                  SimpleConditionEvent.violated(
                      field, field.getFullName() + " is static, not final"));
            }
          }
          type.getStaticInitializer()
              .ifPresent(
                  init -> {
                    for (JavaConstructorCall call : init.getConstructorCallsFromSelf()) {
                      if (isMutableContainer(call.getTargetOwner())) {
                        events.add(
                            SimpleConditionEvent.violated(
                                call,
                                type.getName()
                                    + "'s static initializer makes a "
                                    + call.getTargetOwner().getName()
                                    + " "
                                    + call.getSourceCodeLocation()));
                      }
                    }
                  });
        }
      };

  static final ArchRule NO_STATIC_STATE =
      classes()
          .that()
          .resideInAPackage("dev.mcpgate..")
          .should(KEEP_NO_STATIC_STATE)
          .because("state belongs to a gate, a store or a call, never to the JVM");

  private static boolean isMutableContainer(JavaClass owner) {
    String name = owner.getName();
    return name.startsWith("java.util.")
            && (owner.isAssignableTo(Map.class) || owner.isAssignableTo(Collection.class))
        || name.startsWith("java.util.concurrent.atomic.")
        || owner.isAssignableTo(ThreadLocal.class);
  }

  @Test
  void theCheckSeesEveryModule() {
    for (String type :
        new String[] {
          "dev.mcpgate.core.IdempotencyGate",
          "dev.mcpgate.mcp.GatedClaim",
          "dev.mcpgate.jdbc.JdbcIdempotencyStore",
          "dev.mcpgate.redis.RedisIdempotencyStore",
          "dev.mcpgate.dynamodb.DynamoDbIdempotencyStore",
          "dev.mcpgate.spring.McpGateAutoConfiguration",
          "dev.mcpgate.cache.ReplayCache",
          "dev.mcpgate.testkit.GateChecks",
          "dev.mcpgate.store.tck.IdempotencyStoreContract"
        }) {
      assertThat(ALL.contain(type)).as(type).isTrue();
    }
  }

  @Test
  void noLibraryClassKeepsStaticState() {
    NO_STATIC_STATE.check(ALL);
  }

  @Test
  void theRuleCatchesAClassThatKeepsStaticState() {
    JavaClasses withViolation =
        new ClassFileImporter().importPackages("dev.mcpgate.boundaries.violation");
    ArchRule onFixtures =
        classes()
            .that()
            .resideInAPackage("dev.mcpgate.boundaries.violation")
            .should(KEEP_NO_STATIC_STATE);
    assertThatThrownBy(() -> onFixtures.check(withViolation))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("KeepsStaticState.calls is static, not final")
        .hasMessageContaining("makes a java.util.concurrent.ConcurrentHashMap");
  }
}
