package dev.mcpgate.mcp;

import static java.util.Objects.requireNonNull;

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
  static <S> List<S> gate(
      List<S> specs,
      Object[] beans,
      Function<S, McpSchema.Tool> tool,
      BiFunction<S, ToolPolicy, S> wrap) {
    requireNonNull(specs, "specs must not be null");
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
      throw new IllegalArgumentException(
          "@Idempotent methods name tools that are not in the"
              + " specifications: "
              + unmatched.keySet()
              + "; the specifications have "
              + specs.stream().map(s -> tool.apply(s).name()).toList());
    }
    return out;
  }

  /**
   * @return the policy of each annotated tool, by tool name
   * @throws IllegalArgumentException for a bean with no {@code @Idempotent} method to be found (a
   *     proxy that hides its target's annotations, or the wrong bean), or two methods that name one
   *     tool
   */
  static Map<String, ToolPolicy> policies(Object... beans) {
    requireNonNull(beans, "beans must not be null");
    Class<?>[] types = new Class<?>[beans.length];
    for (int i = 0; i < beans.length; i++) {
      types[i] = requireNonNull(beans[i], "bean must not be null").getClass();
    }
    return policiesOf(types);
  }

  /** Like {@link #policies(Object...)}, by class. */
  static Map<String, ToolPolicy> policiesOf(Class<?>... types) {
    Map<String, ToolPolicy> policies = new LinkedHashMap<>();
    for (Class<?> type : requireNonNull(types, "types must not be null")) {
      Map<String, Method> annotated =
          annotatedMethods(requireNonNull(type, "type must not be null"));
      if (annotated.isEmpty()) {
        throw new IllegalArgumentException(
            "no @Idempotent method was found on "
                + type.getName()
                + ", so none of its tools would be gated. If it is a"
                + " proxy (a @Transactional Spring bean), put @Idempotent on a method of its class"
                + " or of an interface it implements; a JDK interface proxy shows only the"
                + " interface's annotations.");
      }
      for (Method method : annotated.values()) {
        Idempotent idempotent = method.getAnnotation(Idempotent.class);
        String name = !idempotent.tool().isEmpty() ? idempotent.tool() : mcpToolName(method);
        if (policies.put(name, ToolPolicy.of(idempotent)) != null) {
          throw new IllegalArgumentException(
              "two @Idempotent methods name the tool \"" + name + "\"");
        }
      }
    }
    return policies;
  }

  /**
   * @return true when the class (or a superclass or interface) has an @Idempotent method
   */
  static boolean hasAnnotatedMethods(Class<?> type) {
    return !annotatedMethods(type).isEmpty();
  }

  /**
   * The {@code @Idempotent} methods of a class, by signature, looked up through its superclasses
   * and interfaces: a CGLIB proxy (a subclass whose overriding methods carry no annotations) shows
   * its target class's, and a JDK proxy its interfaces'. The most derived annotated declaration of
   * each signature wins.
   */
  private static Map<String, Method> annotatedMethods(Class<?> type) {
    Map<String, Method> found = new LinkedHashMap<>();
    List<Class<?>> seen = new ArrayList<>();
    List<Class<?>> queue = new ArrayList<>(List.of(type));
    while (!queue.isEmpty()) {
      Class<?> c = queue.remove(0);
      if (c == null || c == Object.class || seen.contains(c)) {
        continue;
      }
      seen.add(c);
      for (Method method : c.getDeclaredMethods()) {
        if (method.isAnnotationPresent(Idempotent.class) && !method.isBridge()) {
          found.putIfAbsent(method.getName() + List.of(method.getParameterTypes()), method);
        }
      }
      queue.add(c.getSuperclass());
      queue.addAll(List.of(c.getInterfaces()));
    }
    return found;
  }

  /**
   * The name of a Spring AI (or community) {@code @McpTool}, or of a Spring AI {@code @Tool} (a
   * tool callback), on the method, else its name: the name the tool is served under.
   */
  private static String mcpToolName(Method method) {
    for (Annotation a : method.getAnnotations()) {
      Class<?> type = a.annotationType();
      if (type.getSimpleName().equals("McpTool")
          || type.getName().equals("org.springframework.ai.tool.annotation.Tool")) {
        try {
          Object name = type.getMethod("name").invoke(a);
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
