package dev.mcpgate.core.internal.engine;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noFields;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaCodeUnit;
import com.tngtech.archunit.core.domain.JavaConstructorCall;
import com.tngtech.archunit.core.domain.JavaField;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import dev.mcpgate.core.GatePolicy;
import dev.mcpgate.core.IdempotencyGate;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * One engine per gate (issue 30): the engine's parts are wired once, when a gate is built, and a
 * tool's policy travels with its call; {@code withPolicy} makes a view over the same engine. The
 * parts are {@link GateEngine} and what it holds in its fields, and what those hold, within the
 * engine's package (so a part added later is covered without naming it here). Checked on the
 * compiled main classes with ArchUnit; each rule is shown to catch a fixture in {@code
 * internal.engine.violation}.
 */
class OneEnginePerGateTest {
  private static final String ENGINE = "dev.mcpgate.core.internal.engine";

  private static final JavaClasses MAIN =
      new ClassFileImporter()
          .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
          .importPackages("dev.mcpgate.core");

  /**
   * The names of the engine's parts: GateEngine and, transitively, its fields' engine classes (not
   * interfaces: the {@link Ticker} is given, not built).
   */
  private static final Set<String> PARTS = parts(MAIN.get(GateEngine.class));

  private static Set<String> parts(JavaClass engine) {
    Set<String> parts = new TreeSet<>();
    Deque<JavaClass> todo = new ArrayDeque<>(Set.of(engine));
    while (!todo.isEmpty()) {
      JavaClass part = todo.pop();
      if (part.getPackageName().equals(ENGINE)
          && !part.isInterface()
          && parts.add(part.getName())) {
        part.getFields().stream().map(JavaField::getRawType).forEach(todo::push);
      }
    }
    return parts;
  }

  /**
   * Where the parts may be built: a part in GateEngine's constructors, and GateEngine itself only
   * in the gate's {@code Builder.build()} (or by another of its own constructors).
   */
  private static boolean wiring(JavaConstructorCall call) {
    JavaCodeUnit origin = call.getOrigin();
    JavaClass caller = origin.getOwner();
    if (caller.isEquivalentTo(GateEngine.class) && origin.isConstructor()) {
      return true;
    }
    return call.getTargetOwner().isEquivalentTo(GateEngine.class)
        && caller.isEquivalentTo(IdempotencyGate.Builder.class)
        && origin.getName().equals("build");
  }

  /** The engine and its parts are built once per built gate, never per policy or per tool. */
  static final ArchRule PARTS_ARE_WIRED_ONCE_PER_GATE =
      noClasses()
          .should()
          .callConstructorWhere(
              DescribedPredicate.describe(
                  "builds the engine or one of its parts "
                      + PARTS
                      + " outside the gate's wiring"
                      + " (IdempotencyGate.Builder.build() -> GateEngine's constructor)",
                  call -> PARTS.contains(call.getTargetOwner().getName()) && !wiring(call)))
          .because(
              "a gate's withPolicy shares its engine: the policy is passed with each call, not"
                  + " wired into a new engine (issue 30)");

  /**
   * No engine object holds a policy: each call passes the calling gate's down. The one exception is
   * a late fence's own state, kept until its one fence is written.
   */
  static final ArchRule NO_PART_HOLDS_A_POLICY =
      noFields()
          .that()
          .areDeclaredInClassesThat(
              DescribedPredicate.describe(
                  "are in the engine (but a late fence, one call's state)",
                  c ->
                      c.getPackageName().startsWith(ENGINE)
                          && !c.getName().equals(LateFencer.class.getName() + "$LateFence")))
          .should()
          .haveRawType(GatePolicy.class)
          .because(
              "the policy travels with each call; a part that held one would have to be built"
                  + " per policy again (issue 30)");

  @Test
  void thePartsAreTheEngineAndWhatItHolds() {
    assertThat(PARTS)
        .containsExactlyInAnyOrder(
            GateEngine.class.getName(),
            LeaseRenewer.class.getName(),
            LateFencer.class.getName(),
            Events.class.getName(),
            DirectScope.class.getName(),
            Claimer.class.getName(),
            Reconciliation.class.getName(),
            ResultWriter.class.getName(),
            ClaimSteps.class.getName(),
            OperatorSettlement.class.getName(),
            AttemptRunner.class.getName(),
            FailureSettler.class.getName(),
            CommitResolver.class.getName(),
            SingleCommitRunner.class.getName(),
            CallsInFlight.class.getName(),
            StepClaimer.class.getName());
  }

  @Test
  void theEngineAndItsPartsAreWiredOncePerGate() {
    PARTS_ARE_WIRED_ONCE_PER_GATE.check(MAIN);
  }

  @Test
  void noEnginePartHoldsAPolicy() {
    NO_PART_HOLDS_A_POLICY.check(MAIN);
  }

  @Test
  void theRuleCatchesAnEngineBuiltPerPolicy() {
    JavaClasses withViolation =
        new ClassFileImporter().importPackages(ENGINE + ".violation", "dev.mcpgate.core");
    assertThatThrownBy(() -> PARTS_ARE_WIRED_ONCE_PER_GATE.check(withViolation))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("RebuildsTheEnginePerPolicy.forTool")
        .hasMessageContaining(GateEngine.class.getName() + ".<init>");
  }

  @Test
  void theRuleCatchesAnEngineClassThatHoldsAPolicy() {
    JavaClasses withViolation =
        new ClassFileImporter().importPackages(ENGINE + ".violation", "dev.mcpgate.core");
    assertThatThrownBy(() -> NO_PART_HOLDS_A_POLICY.check(withViolation))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("HoldsThePolicy.policy");
  }
}
