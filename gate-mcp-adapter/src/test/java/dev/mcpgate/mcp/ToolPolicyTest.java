package dev.mcpgate.mcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.mcpgate.core.GatePolicy;
import dev.mcpgate.core.GateSettings;
import io.modelcontextprotocol.spec.McpSchema;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Policies, the gated tool definition, and natural keys. */
class ToolPolicyTest {

  @Test
  void badPoliciesAreRefusedNamingTheProblem() {
    assertThatThrownBy(() -> ToolPolicy.builder().keySources().build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("keySources");
    assertThatThrownBy(() -> ToolPolicy.builder().keySources(KeySource.NATURAL).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("naturalKey");
    assertThatThrownBy(() -> ToolPolicy.builder().keyArgument(" ").build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("keyArgument");
    assertThatThrownBy(
            () -> ToolPolicy.builder().keySources(KeySource.META, KeySource.META).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("repeat");
  }

  @Test
  void toolOverridesApplyAndTheKeyArgumentIsNeverHashed() {
    GatePolicy applied =
        ToolPolicy.builder()
            .settings(
                GateSettings.builder()
                    .retention(Duration.ofHours(2))
                    .ignoredArguments(Set.of("trace_id"))
                    .build())
            .build()
            .applyTo(GatePolicy.defaults());

    assertThat(applied.retention()).isEqualTo(Duration.ofHours(2));
    assertThat(applied.lease()).isEqualTo(GatePolicy.defaults().lease());
    assertThat(applied.ignoredArguments()).containsExactlyInAnyOrder("idempotency_key", "trace_id");
  }

  @Test
  void theBuilderSetsEachSettingItselfAsGateSettingsBuilderDoes() {
    ToolPolicy direct =
        ToolPolicy.builder()
            .retention(Duration.ofHours(2))
            .ignoredArguments(Set.of("trace_id"))
            .keyArgument("op_id")
            .build();
    GateSettings same =
        GateSettings.builder()
            .retention(Duration.ofHours(2))
            .ignoredArguments(Set.of("trace_id"))
            .build();

    assertThat(direct.settings()).isEqualTo(same);
    assertThat(direct.toBuilder().build()).isEqualTo(direct);
    assertThat(ToolPolicy.builder().lease(Duration.ofSeconds(9)).settings(same).build().settings())
        .as("settings(...) sets every value")
        .isEqualTo(same);
    assertThatThrownBy(() -> ToolPolicy.builder().maxResultBytes(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("maxResultBytes must be at least 1, was 0");
  }

  @Test
  void inFlightRefuseIsAZeroInFlightWaitAndWaitKeepsTheGates() {
    GatePolicy base = GatePolicy.builder().inFlightWait(Duration.ofSeconds(7)).build();

    assertThat(ToolPolicy.defaults().inFlight()).isEqualTo(InFlight.WAIT);
    assertThat(ToolPolicy.defaults().applyTo(base).inFlightWait()).isEqualTo(Duration.ofSeconds(7));
    assertThat(ToolPolicy.builder().inFlight(InFlight.REFUSE).build().applyTo(base).inFlightWait())
        .isZero();
  }

  @Test
  void inFlightRefuseWithANonZeroWaitIsRefusedNamingBoth() {
    GateSettings waits = GateSettings.builder().inFlightWait(Duration.ofSeconds(3)).build();
    assertThatThrownBy(() -> ToolPolicy.builder().inFlight(InFlight.REFUSE).settings(waits).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("inFlight REFUSE")
        .hasMessageContaining("PT3S");
    GateSettings zero = GateSettings.builder().inFlightWait(Duration.ZERO).build();
    assertThat(ToolPolicy.builder().inFlight(InFlight.REFUSE).settings(zero).build().inFlight())
        .isEqualTo(InFlight.REFUSE);
  }

  static class SetEverything {
    @Idempotent(
        retention = "PT3H",
        lease = "PT20S",
        leaseRenewal = "PT4S",
        inFlightWait = "PT1S",
        failureMode = GatePolicy.FailureMode.STORE,
        maxResultBytes = 4096,
        ignoredArguments = "trace",
        unknownFence = "PT30M",
        keyDescription = "the id of the queued request")
    public String all() {
      return "";
    }

    @Idempotent(inFlightWait = "soon")
    public String badWait() {
      return "";
    }

    @Idempotent(maxResultBytes = 0)
    public String badSize() {
      return "";
    }
  }

  @Test
  void everySettingOfTheAnnotationReachesTheResolvedPolicy() throws Exception {
    ToolPolicy all =
        ToolPolicy.of(SetEverything.class.getMethod("all").getAnnotation(Idempotent.class));
    GatePolicy resolved = all.applyTo(GatePolicy.defaults());

    assertThat(resolved.retention()).isEqualTo(Duration.ofHours(3));
    assertThat(resolved.lease()).isEqualTo(Duration.ofSeconds(20));
    assertThat(resolved.leaseRenewal()).isEqualTo(Duration.ofSeconds(4));
    assertThat(resolved.inFlightWait()).isEqualTo(Duration.ofSeconds(1));
    assertThat(resolved.failureMode()).isEqualTo(GatePolicy.FailureMode.STORE);
    assertThat(resolved.maxResultBytes()).isEqualTo(4096);
    assertThat(resolved.ignoredArguments()).containsExactlyInAnyOrder("trace", "idempotency_key");
    assertThat(resolved.unknownFence()).isEqualTo(Duration.ofMinutes(30));
    assertThat(all.keyDescription()).isEqualTo("the id of the queued request");
  }

  @Test
  void aBadAnnotationValueIsRefusedNamingTheAttributeAndTheValue() {
    assertThatThrownBy(
            () ->
                ToolPolicy.of(
                    SetEverything.class.getMethod("badWait").getAnnotation(Idempotent.class)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("@Idempotent(inFlightWait = \"soon\")");
    assertThatThrownBy(
            () ->
                ToolPolicy.of(
                    SetEverything.class.getMethod("badSize").getAnnotation(Idempotent.class)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("maxResultBytes must be at least 1, was 0");
  }

  static class AnnotatedTools {
    @Idempotent(inFlight = InFlight.REFUSE, required = false, retention = "PT2H")
    public String refuseAndOptional() {
      return "";
    }

    @Idempotent
    public String defaults() {
      return "";
    }
  }

  @Test
  void theAnnotationCarriesInFlightAndKeyRequired() throws Exception {
    ToolPolicy refuse =
        ToolPolicy.of(
            AnnotatedTools.class.getMethod("refuseAndOptional").getAnnotation(Idempotent.class));
    ToolPolicy defaults =
        ToolPolicy.of(AnnotatedTools.class.getMethod("defaults").getAnnotation(Idempotent.class));

    assertThat(refuse.inFlight()).isEqualTo(InFlight.REFUSE);
    assertThat(refuse.required()).isFalse();
    assertThat(defaults).isEqualTo(ToolPolicy.defaults());
    // a copy keeps every setting (the starter re-keys annotated policies this way)
    assertThat(refuse.toBuilder().build()).isEqualTo(refuse);
    assertThat(refuse.toBuilder().keySources(KeySource.META).build().inFlight())
        .isEqualTo(InFlight.REFUSE);
  }

  @Test
  void keyArgumentIsRequiredInTheSchemaOnlyWhenItIsTheOnlySource() {
    McpSchema.Tool tool = McpSchema.Tool.builder("t", Map.of("type", "object")).build();

    McpSchema.Tool argumentOnly =
        ToolDefinitions.gated(tool, ToolPolicy.builder().keySources(KeySource.ARGUMENT).build());
    McpSchema.Tool argumentOrMeta = ToolDefinitions.gated(tool, ToolPolicy.defaults());
    McpSchema.Tool natural =
        ToolDefinitions.gated(
            tool, ToolPolicy.builder().keySources(KeySource.NATURAL).naturalKey("slug").build());

    assertThat(argumentOnly.inputSchema().get("required")).isEqualTo(List.of("idempotency_key"));
    assertThat(argumentOrMeta.inputSchema()).doesNotContainKey("required");
    assertThat(natural.inputSchema()).doesNotContainKey("properties");
    assertThat(natural.description()).contains("same slug");
    assertThat(natural.annotations().idempotentHint()).isTrue();
  }

  @Test
  void naturalKeysAreCanonicalAndHashedWhenLong() {
    assertThat(KeyExtractor.naturalKey(List.of("s1", 1.0))).isEqualTo("[\"s1\",1]");
    assertThat(KeyExtractor.naturalKey(List.of("x".repeat(300)))).matches("sha256:[0-9a-f]{64}");
  }
}
