package dev.mcpgate.review;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.File;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.Test;

/**
 * Review: spring-webflux is optional in the starter, but every starter test has it on its class
 * path. A WebMVC server without spring-webflux (and without gate-jdbc, as StarterWithoutJdbcTest)
 * must start and gate: the new WebFlux code (ToolSpecificationGating's transport branch,
 * WebFluxIdentity) must not be loaded there.
 */
class StarterWithoutWebFluxReviewTest {
  private static final List<String> LEFT_OUT =
      List.of(
          "spring-webflux",
          "gate-jdbc",
          "spring-boot-jdbc",
          "spring-boot-starter-jdbc",
          "hikaricp");

  @Test
  void aWebMvcServerWithoutSpringWebFluxStartsAndReplays() throws Exception {
    List<URL> urls = new ArrayList<>();
    for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
      String name = entry.toLowerCase(Locale.ROOT);
      if (LEFT_OUT.stream().noneMatch(name::contains)) {
        urls.add(Path.of(entry).toUri().toURL());
      }
    }
    Thread thread = Thread.currentThread();
    ClassLoader before = thread.getContextClassLoader();
    try (URLClassLoader loader =
        new URLClassLoader(urls.toArray(URL[]::new), ClassLoader.getPlatformClassLoader())) {
      assertThatThrownBy(
              () ->
                  loader.loadClass(
                      "org.springframework.web.reactive.function.server.ServerRequest"))
          .isInstanceOf(ClassNotFoundException.class);
      thread.setContextClassLoader(loader);
      @SuppressWarnings("unchecked")
      List<String> seen =
          (List<String>)
              loader.loadClass("dev.mcpgate.nojdbc.MemoryServer").getMethod("run").invoke(null);
      assertThat(seen)
          .containsExactly(
              "dev.mcpgate.core.memory.InMemoryIdempotencyStore",
              "mail 1 to ann replayed=false",
              "mail 1 to ann replayed=true");
    } finally {
      thread.setContextClassLoader(before);
    }
  }
}
