package dev.mcpgate.mcp;

import static dev.mcpgate.core.internal.Checks.notNull;

import io.modelcontextprotocol.spec.McpSchema;
import java.lang.annotation.Annotation;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiFunction;
import java.util.function.Function;

/**
 * Finds the {@link Idempotent} handler methods of beans and gates the specifications of their
 * tools, matched by tool name: {@link Idempotent#tool()}, else the name of the method's
 * {@code @McpTool} annotation, else the method's name.
 */
final class AnnotatedTools {
  private AnnotatedTools() {}

  /**
   * @param wrap gates one specification with its policy
   * @return the specifications, gated where annotated, in the same order
   * @throws IllegalArgumentException naming annotated methods whose tools are not in specs
   */
  static <S> List<S> gate(List<S> specs, Object[] beans, Function<S, McpSchema.Tool> tool,
      BiFunction<S, ToolPolicy, S> wrap) {
    notNull(specs, "specs");
    Map<String, ToolPolicy> policies = policies(beans);
    List<S> out = new ArrayList<>(specs.size());
    Map<String, ToolPolicy> unmatched = new LinkedHashMap<>(policies);
    for (S spec : specs) {
      String name = tool.apply(spec).name();
      ToolPolicy policy = policies.get(name);
      unmatched.remove(name);
      out.add(policy == null ? spec : wrap.apply(spec, policy));
    }
    if (!unmatched.isEmpty()) {
      throw new IllegalArgumentException("@Idempotent methods name tools that are not in the"
          + " specifications: " + unmatched.keySet() + "; the specifications have "
          + specs.stream().map(s -> tool.apply(s).name()).toList());
    }
    return out;
  }

  /** @return the policy of each annotated tool, by tool name */
  static Map<String, ToolPolicy> policies(Object... beans) {
    Map<String, ToolPolicy> policies = new LinkedHashMap<>();
    for (Object bean : notNull(beans, "beans")) {
      for (Method method : notNull(bean, "bean").getClass().getMethods()) {
        Idempotent idempotent = method.getAnnotation(Idempotent.class);
        if (idempotent == null) {
          continue;
        }
        String name = !idempotent.tool().isEmpty() ? idempotent.tool() : mcpToolName(method);
        if (policies.put(name, ToolPolicy.of(idempotent)) != null) {
          throw new IllegalArgumentException("two @Idempotent methods name the tool \"" + name + "\"");
        }
      }
    }
    return policies;
  }

  /** The name of a Spring AI (or community) {@code @McpTool} on the method, else its name. */
  private static String mcpToolName(Method method) {
    for (Annotation a : method.getAnnotations()) {
      if (a.annotationType().getSimpleName().equals("McpTool")) {
        try {
          Object name = a.annotationType().getMethod("name").invoke(a);
          if (name instanceof String s && !s.isBlank()) {
            return s;
          }
        } catch (ReflectiveOperationException e) {
          throw new IllegalStateException("cannot read the name of " + a, e);
        }
      }
    }
    return method.getName();
  }
}
