package dev.mcpgate.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.core.GateSettings;
import dev.mcpgate.mcp.Idempotent;
import dev.mcpgate.mcp.ToolPolicy;
import java.io.InputStream;
import java.lang.reflect.Method;
import java.lang.reflect.RecordComponent;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

/**
 * {@link GateSettings} is the one list of what a scope may set of the gate's policy; each surface a
 * user sets them on offers every one of its components, by the component's name:
 * {@code @Idempotent}'s attributes and the {@code mcpgate.*} properties (the record itself is
 * bound, and the IDE's metadata describes each). A setting deliberately left off a surface is
 * listed in {@link #NOT_ON}, with the reason.
 */
class SettingsOnEverySurfaceTest {

  /**
   * Surface → settings deliberately not on it, each with its reason. None today: every setting is
   * on every surface.
   */
  static final Map<String, Set<String>> NOT_ON = Map.of();

  private static Set<String> settingsOn(String surface) {
    Set<String> settings =
        Arrays.stream(GateSettings.class.getRecordComponents())
            .map(RecordComponent::getName)
            .collect(Collectors.toCollection(HashSet::new));
    settings.removeAll(NOT_ON.getOrDefault(surface, Set.of()));
    return settings;
  }

  private static Set<String> names(Collection<Method> methods) {
    return methods.stream().map(Method::getName).collect(Collectors.toSet());
  }

  @Test
  void theAnnotationHasAnAttributeOfEachSettingsName() {
    assertThat(names(Arrays.asList(Idempotent.class.getDeclaredMethods())))
        .as("@Idempotent's attributes")
        .containsAll(settingsOn("@Idempotent"));
  }

  @Test
  void toolPolicysBuilderHasASetterOfEachSettingsName() {
    for (RecordComponent c : GateSettings.class.getRecordComponents()) {
      if (settingsOn("ToolPolicy.Builder").contains(c.getName())) {
        assertThat(
                Arrays.stream(ToolPolicy.Builder.class.getMethods())
                    .filter(m -> m.getName().equals(c.getName()) && m.getParameterCount() == 1))
            .as("ToolPolicy.Builder.%s(...)", c.getName())
            .isNotEmpty();
      }
    }
  }

  @Test
  void theIdesMetadataDescribesAPropertyOfEachSettingsName() throws Exception {
    Set<String> described = new HashSet<>();
    try (InputStream json =
        getClass().getResourceAsStream("/META-INF/spring-configuration-metadata.json")) {
      for (JsonNode property : new ObjectMapper().readTree(json).get("properties")) {
        described.add(property.get("name").asString());
      }
    }
    assertThat(described)
        .as("mcpgate.* in META-INF/spring-configuration-metadata.json")
        .containsAll(
            settingsOn("mcpgate.*").stream()
                .map(n -> "mcpgate." + dashed(n))
                .collect(Collectors.toSet()));
  }

  @Test
  void eachSettingIsBoundFromThePropertyOfItsName() {
    for (RecordComponent c : GateSettings.class.getRecordComponents()) {
      if (!settingsOn("mcpgate.*").contains(c.getName())) {
        continue;
      }
      var source =
          new MapConfigurationPropertySource(Map.of("mcpgate." + dashed(c.getName()), sample(c)));
      GateSettings bound = new Binder(source).bindOrCreate("mcpgate", GateSettings.class);
      assertThat(bound)
          .as("mcpgate.%s bound", dashed(c.getName()))
          .isNotEqualTo(GateSettings.inherited());
    }
  }

  private static String sample(RecordComponent c) {
    return switch (c.getType().getSimpleName()) {
      case "Duration" -> "1m";
      case "Integer" -> "1024";
      case "FailureMode" -> "store";
      case "Set" -> "trace_id";
      default -> throw new AssertionError("a sample value for " + c + " is missing here");
    };
  }

  static String dashed(String name) {
    return name.replaceAll("([A-Z])", "-$1").toLowerCase(java.util.Locale.ROOT);
  }
}
