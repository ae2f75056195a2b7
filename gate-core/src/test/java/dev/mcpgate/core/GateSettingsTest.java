package dev.mcpgate.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.reflect.RecordComponent;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The one settings type and the one place it is resolved, {@link GatePolicy#with}. */
class GateSettingsTest {

  /** The policy's values that are code, not settings: no annotation or property can hold them. */
  private static final Set<String> CODE = Set.of("outcomeUnknownWhen", "reconciler");

  @Test
  void listsEveryValueOfThePolicyThatIsNotCodeOnceAndInTheSameOrder() {
    List<String> policy =
        Arrays.stream(GatePolicy.class.getRecordComponents())
            .map(RecordComponent::getName)
            .filter(n -> !CODE.contains(n))
            .toList();
    List<String> settings =
        Arrays.stream(GateSettings.class.getRecordComponents())
            .map(RecordComponent::getName)
            .toList();
    assertThat(settings).containsExactlyElementsOf(policy);
  }

  @Test
  void inheritedSettingsGiveThePolicyBack() {
    GatePolicy base =
        GatePolicy.builder()
            .retention(Duration.ofHours(3))
            .lease(Duration.ofSeconds(8))
            .ignoredArguments(Set.of("trace"))
            .build();
    assertThat(base.with(GateSettings.inherited())).isEqualTo(base);
    assertThat(GatePolicy.defaults().with(GateSettings.builder().build()))
        .isEqualTo(GatePolicy.defaults());
  }

  @Test
  void everyValueSetIsTheResolvedPolicysAndIgnoredArgumentsAreAdded() {
    GatePolicy base = GatePolicy.builder().ignoredArguments(Set.of("trace")).build();
    GateSettings all =
        GateSettings.builder()
            .retention(Duration.ofHours(5))
            .lease(Duration.ofSeconds(9))
            .leaseRenewal(Duration.ofSeconds(3))
            .inFlightWait(Duration.ZERO)
            .failureMode(GatePolicy.FailureMode.STORE)
            .maxResultBytes(1234)
            .ignoredArguments(Set.of("request_id"))
            .unknownFence(Duration.ofHours(1))
            .build();

    GatePolicy resolved = base.with(all);

    assertThat(resolved.retention()).isEqualTo(Duration.ofHours(5));
    assertThat(resolved.lease()).isEqualTo(Duration.ofSeconds(9));
    assertThat(resolved.leaseRenewal()).isEqualTo(Duration.ofSeconds(3));
    assertThat(resolved.inFlightWait()).isZero();
    assertThat(resolved.failureMode()).isEqualTo(GatePolicy.FailureMode.STORE);
    assertThat(resolved.maxResultBytes()).isEqualTo(1234);
    assertThat(resolved.ignoredArguments()).containsExactlyInAnyOrder("trace", "request_id");
    assertThat(resolved.unknownFence()).isEqualTo(Duration.ofHours(1));
    // every setting the type lists was applied (a component with() forgot would fail here)
    for (RecordComponent c : GateSettings.class.getRecordComponents()) {
      if (c.getName().equals("ignoredArguments")) {
        continue;
      }
      assertThat(valueOf(resolved, c.getName()))
          .as("resolved %s", c.getName())
          .isEqualTo(valueOf(all, c.getName()));
    }
  }

  @Test
  void aRenewalAndAFenceThatFollowedTheInheritedValuesFollowTheNewOnes() {
    GatePolicy resolved =
        GatePolicy.defaults()
            .with(
                GateSettings.builder()
                    .lease(Duration.ofSeconds(40))
                    .retention(Duration.ofHours(2))
                    .build());
    assertThat(resolved.leaseRenewal()).isEqualTo(Duration.ofSeconds(10));
    assertThat(resolved.unknownFence()).isEqualTo(Duration.ofHours(2));

    GatePolicy set =
        GatePolicy.builder().leaseRenewal(Duration.ofMillis(300)).build(); // set, not followed
    assertThat(
            set.with(GateSettings.builder().lease(Duration.ofSeconds(40)).build()).leaseRenewal())
        .isEqualTo(Duration.ofMillis(300));
  }

  @Test
  void aRuleBetweenAnInheritedValueAndASetOneIsCheckedWhenResolvedNamingBoth() {
    GatePolicy shortRetention = GatePolicy.builder().retention(Duration.ofSeconds(10)).build();
    GateSettings longLease = GateSettings.builder().lease(Duration.ofMinutes(1)).build();
    assertThatThrownBy(() -> shortRetention.with(longLease))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("lease (PT1M)")
        .hasMessageContaining("retention (PT10S)");
  }

  @Test
  void aValueOutOfRangeIsRefusedWhereItIsSetNamingIt() {
    assertThatThrownBy(() -> GateSettings.builder().retention(Duration.ZERO))
        .hasMessageContaining("retention must be at least 1 ms, was PT0S");
    assertThatThrownBy(() -> GateSettings.builder().lease(Duration.ofDays(4000)))
        .hasMessageContaining("lease must be at most");
    assertThatThrownBy(() -> GateSettings.builder().inFlightWait(Duration.ofHours(2)))
        .hasMessageContaining("inFlightWait must be at most PT1H, was PT2H");
    assertThatThrownBy(() -> GateSettings.builder().leaseRenewal(Duration.ofSeconds(-1)))
        .hasMessageContaining("leaseRenewal must not be negative");
    assertThatThrownBy(() -> GateSettings.builder().maxResultBytes(0))
        .hasMessageContaining("maxResultBytes must be at least 1, was 0");
    assertThatThrownBy(() -> GateSettings.builder().ignoredArguments(Set.of("")))
        .hasMessageContaining("ignoredArguments must not contain null or empty names");
    assertThatThrownBy(() -> GateSettings.builder().unknownFence(Duration.ofMillis(0)))
        .hasMessageContaining("unknownFence must be at least 1 ms");
    assertThatThrownBy(
            () -> new GateSettings(null, null, null, null, null, -5, null, null)) // the record too
        .hasMessageContaining("maxResultBytes must be at least 1, was -5");
    assertThatThrownBy(() -> GatePolicy.defaults().with(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessageContaining("settings");
  }

  @Test
  void toBuilderKeepsWhatWasSet() {
    GateSettings two =
        GateSettings.builder().retention(Duration.ofHours(2)).ignoredArguments(Set.of("a")).build();
    assertThat(two.toBuilder().build()).isEqualTo(two);
    assertThat(two.toBuilder().lease(Duration.ofSeconds(3)).build().retention())
        .isEqualTo(Duration.ofHours(2));
  }

  private static Object valueOf(Record record, String component) {
    try {
      return record.getClass().getMethod(component).invoke(record);
    } catch (ReflectiveOperationException e) {
      throw new AssertionError(e);
    }
  }
}
