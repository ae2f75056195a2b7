package dev.mcpgate.quarkus.internal;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The gated tool methods of the application, as the build found them: for each, the tool's name and
 * description and which of its parameters are tool arguments (by name) or the request's {@code
 * _meta}.
 */
public final class GatedTools {
  private static final String SEP = "\u001f";
  private static final String META = "@meta";

  /** One gated tool method: the tool, and the method's class, name and parameter types. */
  record Tool(
      String name,
      String description,
      String[] arguments,
      int metaParameter,
      String className,
      String methodName,
      String[] parameterTypes) {

    /**
     * @return the method, loaded by the application's class loader
     * @throws IllegalStateException when it cannot be found
     */
    Method method() {
      try {
        ClassLoader loader = Thread.currentThread().getContextClassLoader();
        Class<?> type = Class.forName(className, false, loader);
        for (Method m : type.getDeclaredMethods()) {
          if (m.getName().equals(methodName)
              && Arrays.equals(
                  Arrays.stream(m.getParameterTypes()).map(Class::getName).toArray(),
                  parameterTypes)) {
            return m;
          }
        }
      } catch (ClassNotFoundException e) {
        throw new IllegalStateException("the gated tool " + name + " has no class " + className, e);
      }
      throw new IllegalStateException(
          "the gated tool " + name + " has no method " + className + "#" + methodName);
    }
  }

  private final Map<String, Tool> byMethod = new HashMap<>();
  private final Set<String> names;

  GatedTools(List<String> lines) {
    for (String line : lines) {
      String[] f = line.split(SEP, -1);
      String[] args = Arrays.copyOfRange(f, 5, f.length);
      int meta = Arrays.asList(args).indexOf(META);
      for (int i = 0; i < args.length; i++) {
        if (args[i].isEmpty() || args[i].equals(META)) {
          args[i] = null;
        }
      }
      String[] types = f[2].isEmpty() ? new String[0] : f[2].split(",");
      byMethod.put(
          f[0] + "#" + f[1] + "(" + f[2] + ")",
          new Tool(f[3], f[4], args, meta, f[0], f[1], types));
    }
    names = byMethod.values().stream().map(Tool::name).collect(Collectors.toUnmodifiableSet());
  }

  /**
   * One line of {@link GateRecorder#gatedTools}, written by the deployment module.
   *
   * @param className the bean class that declares the method
   * @param method the method's name
   * @param parameterTypes the erased type of each parameter, as {@link Class#getName()} gives it
   * @param tool the tool's name
   * @param description the tool's description
   * @param parameters per parameter: the tool argument's name, {@code null} for a parameter the
   *     extension injects, or {@link #metaParameter()} for the request's {@code _meta}
   * @return the line
   */
  public static String line(
      String className,
      String method,
      List<String> parameterTypes,
      String tool,
      String description,
      List<String> parameters) {
    List<String> f = new ArrayList<>();
    f.add(className);
    f.add(method);
    f.add(String.join(",", parameterTypes));
    f.add(tool);
    f.add(description == null ? "" : description);
    for (String p : parameters) {
      f.add(p == null ? "" : p);
    }
    return String.join(SEP, f);
  }

  /**
   * @return what {@link #line} takes for a {@code Meta} parameter
   */
  public static String metaParameter() {
    return META;
  }

  /**
   * @return every gated tool method
   */
  Collection<Tool> tools() {
    return byMethod.values();
  }

  /**
   * @return whether a tool of this name is gated
   */
  boolean isGated(String toolName) {
    return names.contains(toolName);
  }

  /**
   * @return the gated tool of a method, or null when the build did not find it gated
   */
  Tool find(Method method) {
    String types =
        Arrays.stream(method.getParameterTypes())
            .map(Class::getName)
            .collect(Collectors.joining(","));
    return byMethod.get(
        method.getDeclaringClass().getName() + "#" + method.getName() + "(" + types + ")");
  }
}
