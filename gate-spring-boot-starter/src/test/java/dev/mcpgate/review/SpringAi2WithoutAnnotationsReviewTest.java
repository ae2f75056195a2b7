package dev.mcpgate.review;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import java.io.File;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.Test;

/**
 * Review: SupportedStack takes "Spring AI's MCP server without
 * org.springframework.ai.mcp.annotation .McpTool" for Spring AI 1.x. But spring-ai-mcp-annotations
 * is an optional dependency of Spring AI 2's spring-ai-autoconfigure-mcp-server-common (its
 * annotation auto-configurations are {@code @ConditionalOnClass(McpTool.class)}): a Spring Boot 4 /
 * Spring AI 2 application without it is supported, and is refused at startup with "runs Spring Boot
 * 4.x but with Spring AI 1.x".
 */
class SpringAi2WithoutAnnotationsReviewTest {

  /**
   * This module's class path less the spring-ai-mcp-annotations jar (and, as in
   * StarterWithoutJdbcTest, JDBC, so the server runs on the in-memory store without a DataSource).
   */
  private static final List<String> LEFT_OUT =
      List.of(
          "spring-ai-mcp-annotations",
          "gate-jdbc",
          "spring-boot-jdbc",
          "spring-boot-starter-jdbc",
          "hikaricp");

  static URLClassLoader withoutAnnotations() throws Exception {
    List<URL> urls = new ArrayList<>();
    for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
      String name = entry.toLowerCase(Locale.ROOT);
      if (LEFT_OUT.stream().noneMatch(name::contains)) {
        urls.add(Path.of(entry).toUri().toURL());
      }
    }
    return new URLClassLoader(urls.toArray(URL[]::new), ClassLoader.getPlatformClassLoader());
  }

  /** Unit level: SupportedStack.check on a Spring AI 2 class path without the annotations jar. */
  @Test
  void checkDoesNotRefuseSpringAi2WithoutItsAnnotationsModule() throws Exception {
    try (URLClassLoader loader = withoutAnnotations()) {
      // Spring AI 2's MCP server auto-configuration (this class is 2.x only; 1.1 has
      // McpServerObjectMapperAutoConfiguration instead)
      assertThat(
              loader.loadClass(
                  "org.springframework.ai.mcp.server.common.autoconfigure"
                      + ".McpServerJsonMapperAutoConfiguration"))
          .isNotNull();
      assertThat(isPresent(loader, "org.springframework.ai.mcp.annotation.McpTool")).isFalse();

      Class<?> stack = loader.loadClass("dev.mcpgate.spring.SupportedStack");
      Method check = stack.getDeclaredMethod("check", String.class, ClassLoader.class);
      check.setAccessible(true);
      assertThatCode(
              () -> {
                try {
                  check.invoke(null, "4.0.7", loader);
                } catch (InvocationTargetException e) {
                  throw e.getCause();
                }
              })
          .as("Spring Boot 4.0.7 with Spring AI 2.0.1 (no annotations module) is supported")
          .doesNotThrowAnyException();
    }
  }

  /** End to end: a real Spring AI 2 server without the annotations module starts. */
  @Test
  void aSpringAi2ServerWithoutTheAnnotationsModuleStarts() throws Exception {
    Thread thread = Thread.currentThread();
    ClassLoader before = thread.getContextClassLoader();
    try (URLClassLoader loader = withoutAnnotations()) {
      thread.setContextClassLoader(loader);
      Method run = loader.loadClass("dev.mcpgate.noannotations.PlainServer").getMethod("run");
      assertThatCode(
              () -> {
                try {
                  assertThat(run.invoke(null)).isEqualTo("started");
                } catch (InvocationTargetException e) {
                  throw e.getCause();
                }
              })
          .doesNotThrowAnyException();
    } finally {
      thread.setContextClassLoader(before);
    }
  }

  private static boolean isPresent(ClassLoader loader, String name) {
    try {
      Class.forName(name, false, loader);
      return true;
    } catch (ClassNotFoundException e) {
      return false;
    }
  }
}
