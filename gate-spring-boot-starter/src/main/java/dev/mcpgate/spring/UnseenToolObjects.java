package dev.mcpgate.spring;

import dev.mcpgate.mcp.Idempotent;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.util.LinkedHashSet;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.util.ClassUtils;

/**
 * Finds the tools whose Spring AI method callback calls an object that is not a proxy: an instance
 * of a class with {@code @Idempotent} methods that is not its Spring bean ({@code
 * MethodToolCallbackProvider.builder().toolObjects(new Tools())}, or a bean method of a lite
 * configuration calling another). {@link ToolExceptions} sees nothing such an object throws, so the
 * gate cannot tell an unknown outcome from a failure: every error result of such a tool counts as
 * unknown, and a WARN names it.
 */
final class UnseenToolObjects {
  private static final Logger LOG = LoggerFactory.getLogger(UnseenToolObjects.class);

  private static final String PROVIDER = "org.springframework.ai.tool.ToolCallbackProvider";
  private static final String METHOD_CALLBACK =
      "org.springframework.ai.tool.method.MethodToolCallback";

  private UnseenToolObjects() {}

  /**
   * @return the names of such tools, each logged at WARN; empty without Spring AI's tool callbacks
   */
  static Set<String> in(ListableBeanFactory beans) {
    ClassLoader loader = UnseenToolObjects.class.getClassLoader();
    if (!ClassUtils.isPresent(PROVIDER, loader) || !ClassUtils.isPresent(METHOD_CALLBACK, loader)) {
      return Set.of();
    }
    Set<String> unseen = new LinkedHashSet<>();
    try { // Spring AI's tool types are not on this module's compile path: read by reflection
      Class<?> providerType = ClassUtils.forName(PROVIDER, loader);
      Class<?> methodCallback = ClassUtils.forName(METHOD_CALLBACK, loader);
      for (Object provider : beans.getBeansOfType(providerType, false, false).values()) {
        for (Object callback :
            (Object[]) providerType.getMethod("getToolCallbacks").invoke(provider)) {
          Object tools = methodCallback.isInstance(callback) ? toolObject(callback) : null;
          if (tools != null && !AopUtils.isAopProxy(tools) && hasIdempotent(tools.getClass())) {
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

  private static boolean hasIdempotent(Class<?> type) {
    for (Class<?> c = type; c != null && c != Object.class; c = c.getSuperclass()) {
      for (Method m : c.getDeclaredMethods()) {
        if (m.isAnnotationPresent(Idempotent.class)) {
          return true;
        }
      }
    }
    return false;
  }
}
