package dev.mcpgate.spring;

import dev.mcpgate.mcp.Idempotent;
import dev.mcpgate.mcp.McpGate;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.util.ClassUtils;

/**
 * Finds the {@code @Idempotent} tools whose method {@link ToolExceptions} cannot see: those of a
 * bean class it cannot proxy ({@link #proxiable}: a final class, a final or private tool method),
 * and those whose Spring AI method callback calls an object that is not its Spring bean ({@code
 * MethodToolCallbackProvider.builder().toolObjects(new Tools())}, or a bean method of a lite
 * configuration calling another). The gate cannot tell an unknown outcome of such a tool from a
 * failure: every error result of it counts as unknown, and a WARN names it.
 */
final class UnseenToolObjects {
  private static final Logger LOG = LoggerFactory.getLogger(UnseenToolObjects.class);

  private static final String PROVIDER = "org.springframework.ai.tool.ToolCallbackProvider";
  private static final String METHOD_CALLBACK =
      "org.springframework.ai.tool.method.MethodToolCallback";

  private UnseenToolObjects() {}

  /**
   * @param types the bean classes with {@code @Idempotent} methods
   * @return the names of such tools, each logged at WARN
   */
  static Set<String> in(ListableBeanFactory beans, List<Class<?>> types) {
    Set<String> unseen = new LinkedHashSet<>();
    for (Class<?> type : types) {
      if (!proxiable(type)) {
        for (String name : McpGate.annotatedPolicies(type).keySet()) {
          unseen.add(name);
          LOG.warn(
              "tool {}: {} is final or has a final or private @Idempotent method, which a proxy"
                  + " cannot wrap, so MCP Gate cannot see what it throws: every error result of"
                  + " it fences its key as outcome unknown (docs/spring-boot.md)",
              name,
              type.getName());
        }
      }
    }
    ClassLoader loader = UnseenToolObjects.class.getClassLoader();
    if (!ClassUtils.isPresent(PROVIDER, loader) || !ClassUtils.isPresent(METHOD_CALLBACK, loader)) {
      return unseen;
    }
    try { // Spring AI's tool types are not on this module's compile path: read by reflection
      Class<?> providerType = ClassUtils.forName(PROVIDER, loader);
      Class<?> methodCallback = ClassUtils.forName(METHOD_CALLBACK, loader);
      for (Object provider : beans.getBeansOfType(providerType, false, false).values()) {
        for (Object callback :
            (Object[]) providerType.getMethod("getToolCallbacks").invoke(provider)) {
          Object tools = methodCallback.isInstance(callback) ? toolObject(callback) : null;
          if (tools != null
              && !AopUtils.isAopProxy(tools)
              && proxiable(tools.getClass())
              && McpGate.hasIdempotentMethods(tools.getClass())) {
            Object definition = callback.getClass().getMethod("getToolDefinition").invoke(callback);
            String name = (String) definition.getClass().getMethod("name").invoke(definition);
            unseen.add(name);
            LOG.warn(
                "tool {}: Spring AI calls it on an instance of {} that is not its Spring bean"
                    + " (not proxied), so MCP Gate cannot see what it throws: every error result"
                    + " of it fences its key as outcome unknown. Give the tool callback the bean"
                    + " (docs/spring-boot.md)",
                name,
                tools.getClass().getName());
          }
        }
      }
    } catch (ReflectiveOperationException | RuntimeException e) {
      LOG.warn(
          "could not read Spring AI's tool callbacks ({}): a tool called on an object that is not"
              + " its Spring bean is not found, and its unknown outcomes release its key",
          e.toString());
    }
    return unseen;
  }

  /**
   * @return false for a final class, or one with a final or private method that is {@code
   *     Idempotent} or implements or overrides a method that is (on an interface, say)
   */
  static boolean proxiable(Class<?> type) {
    if (Modifier.isFinal(type.getModifiers())) {
      return false;
    }
    for (Class<?> c = type; c != null; c = c.getSuperclass()) {
      for (Method m : c.getDeclaredMethods()) {
        if ((Modifier.isFinal(m.getModifiers()) || Modifier.isPrivate(m.getModifiers()))
            && AnnotatedElementUtils.hasAnnotation(m, Idempotent.class)) {
          return false;
        }
      }
    }
    return true;
  }

  /**
   * @return the object the callback calls, or null when this Spring AI keeps it elsewhere
   */
  private static Object toolObject(Object callback) {
    try {
      Field field = callback.getClass().getDeclaredField("toolObject");
      field.setAccessible(true);
      return field.get(callback);
    } catch (ReflectiveOperationException | RuntimeException e) {
      LOG.debug("could not read the object of tool callback {}", callback, e);
      return null;
    }
  }
}
