package dev.mcpgate.core;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import org.junit.jupiter.api.Test;

/**
 * The engine stands apart from the API: no engine class depends on the facade ({@link
 * IdempotencyGate}), and nothing of gate-core but the facade reaches into the engine. Checked on
 * the compiled main classes with ArchUnit.
 */
class EngineBoundariesTest {
  private static final String ENGINE = "dev.mcpgate.core.internal.engine..";

  private static final JavaClasses MAIN =
      new ClassFileImporter()
          .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
          .importPackages("dev.mcpgate.core");

  /** No arrow runs back up from the engine to the gate that calls it. */
  static final ArchRule ENGINE_NEVER_CALLS_THE_FACADE =
      noClasses()
          .that()
          .resideInAPackage(ENGINE)
          .should()
          .dependOnClassesThat()
          .belongToAnyOf(IdempotencyGate.class);

  /** The facade is the engine's one caller in gate-core (the engine's own classes aside). */
  static final ArchRule ONLY_THE_FACADE_REACHES_THE_ENGINE =
      classes()
          .that()
          .resideInAPackage(ENGINE)
          .should()
          .onlyHaveDependentClassesThat(
              DescribedPredicate.describe(
                  "are the engine's or the facade's",
                  c ->
                      c.getPackageName().startsWith("dev.mcpgate.core.internal.engine")
                          || c.isEquivalentTo(IdempotencyGate.class)
                          || c.getEnclosingClass()
                              .map(e -> e.isEquivalentTo(IdempotencyGate.class))
                              .orElse(false)));

  @Test
  void noEngineClassDependsOnTheFacade() {
    ENGINE_NEVER_CALLS_THE_FACADE.check(MAIN);
  }

  @Test
  void onlyTheFacadeReachesTheEngine() {
    ONLY_THE_FACADE_REACHES_THE_ENGINE.check(MAIN);
  }

  @Test
  void theRuleCatchesAnEngineClassThatCallsTheFacade() {
    JavaClasses withViolation =
        new ClassFileImporter()
            .importPackages("dev.mcpgate.core.internal.engine.violation", "dev.mcpgate.core");
    assertThatThrownBy(() -> ENGINE_NEVER_CALLS_THE_FACADE.check(withViolation))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("CallsTheFacade");
  }

  @Test
  void theRuleCatchesAClassOutsideTheFacadeThatReachesTheEngine() {
    JavaClasses withViolation =
        new ClassFileImporter().importPackages("dev.mcpgate.core.violation", "dev.mcpgate.core");
    assertThatThrownBy(() -> ONLY_THE_FACADE_REACHES_THE_ENGINE.check(withViolation))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("ReachesTheEngine");
  }
}
