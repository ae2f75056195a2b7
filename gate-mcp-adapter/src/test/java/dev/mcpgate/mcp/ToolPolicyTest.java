package dev.mcpgate.mcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.mcpgate.core.GatePolicy;
import io.modelcontextprotocol.spec.McpSchema;
import java.time.Duration;
import java.util.List;
import java.util.Map;
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
            .retention(Duration.ofHours(2))
            .ignoredArguments("trace_id")
            .build()
            .applyTo(GatePolicy.defaults());

    assertThat(applied.retention()).isEqualTo(Duration.ofHours(2));
    assertThat(applied.lease()).isEqualTo(GatePolicy.defaults().lease());
    assertThat(applied.ignoredArguments()).containsExactlyInAnyOrder("idempotency_key", "trace_id");
  }

  @Test
  void inFlightRefuseIsAZeroInFlightWaitAndWaitKeepsTheGates() {
    GatePolicy base = GatePolicy.builder().inFlightWait(Duration.ofSeconds(7)).build();

    assertThat(ToolPolicy.defaults().inFlight()).isEqualTo(InFlight.WAIT);
    assertThat(ToolPolicy.defaults().applyTo(base).inFlightWait()).isEqualTo(Duration.ofSeconds(7));
    assertThat(ToolPolicy.builder().inFlight(InFlight.REFUSE).build().applyTo(base).inFlightWait())
        .isZero();
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
