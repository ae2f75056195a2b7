package dev.mcpgate.quarkus.deployment;

import dev.mcpgate.mcp.KeySource;
import dev.mcpgate.mcp.ToolPolicy;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import org.jboss.jandex.AnnotationInstance;
import org.jboss.jandex.AnnotationValue;
import org.jboss.jandex.DotName;
import org.jboss.jandex.MethodInfo;
import org.jboss.jandex.MethodParameterInfo;

/** Where a gated tool's key comes from, as its {@code @Idempotent} says, and which never serves. */
final class KeySourceCheck {
  private static final DotName TOOL_ARG = DotName.createSimple("io.quarkiverse.mcp.server.ToolArg");
  private static final DotName OPTIONAL = DotName.createSimple(Optional.class);

  private KeySourceCheck() {}

  static List<String> sources(AnnotationInstance gated) {
    return gated.value("keySources") == null
        ? List.of(KeySource.ARGUMENT.name(), KeySource.META.name())
        : Arrays.asList(gated.value("keySources").asEnumArray());
  }

  static String keyArgument(AnnotationInstance gated) {
    AnnotationValue key = gated.value("keyArgument");
    return key == null ? ToolPolicy.DEFAULT_KEY_ARGUMENT : key.asString();
  }

  /**
   * @return a warning when the key argument is required in the tool's schema (the MCP server's
   *     rule: {@code required} if set, else unless an {@code Optional} or given a {@code
   *     defaultValue}, even {@code ""}) while keySources name {@code _meta} or the header too: the
   *     server refuses a call without the argument before the gate, so those never serve alone
   */
  static Optional<String> requiredKey(MethodInfo method, String tool, AnnotationInstance gated) {
    List<String> sources = sources(gated);
    int argument = sources.indexOf(KeySource.ARGUMENT.name());
    List<String> others = new ArrayList<>(); // _meta and the header alone; a natural key after it
    for (int i = 0; i < sources.size(); i++) {
      if (i > argument || !sources.get(i).equals(KeySource.NATURAL.name())) {
        others.add(sources.get(i));
      }
    }
    others.remove(KeySource.ARGUMENT.name());
    if (argument < 0 || others.isEmpty()) {
      return Optional.empty();
    }
    String key = keyArgument(gated);
    for (MethodParameterInfo p : method.parameters()) {
      AnnotationInstance arg = p.annotation(TOOL_ARG);
      AnnotationValue name = arg == null ? null : arg.value("name");
      AnnotationValue required = arg == null ? null : arg.value("required");
      boolean filled =
          p.type().name().equals(OPTIONAL) || (arg != null && arg.value("defaultValue") != null);
      if (key.equals(name == null ? p.name() : name.asString())
          && (required == null ? !filled : required.asBoolean())) {
        return Optional.of(
            "  "
                + tool
                + ": its key argument "
                + key
                + " is required in the tool's schema, so the MCP server refuses a call without it"
                + " before the gate, and a key from "
                + String.join(" or ", others)
                + " never serves; mark it @ToolArg(required = false), or take those out of"
                + " keySources");
      }
    }
    return Optional.empty();
  }
}
