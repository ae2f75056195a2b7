package dev.mcpgate.spring;

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
 * gate-jdbc is optional: an application on the in-memory store (or DynamoDB, or Redis) has no
 * gate-jdbc, and the starter must start without it. This test runs a real server in a class loader
 * made of this module's test class path less gate-jdbc and Spring's JDBC support, so that a class
 * of the starter that touches gate-jdbc on every startup fails it here.
 */
class StarterWithoutJdbcTest {
  private static final List<String> LEFT_OUT =
      List.of("gate-jdbc", "spring-boot-jdbc", "spring-boot-starter-jdbc", "hikaricp");

  static URLClassLoader withoutJdbc() throws Exception {
    List<URL> urls = new ArrayList<>();
    for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
      String name = entry.toLowerCase(Locale.ROOT);
      if (LEFT_OUT.stream().noneMatch(name::contains)) {
        urls.add(Path.of(entry).toUri().toURL());
      }
    }
    return new URLClassLoader(urls.toArray(URL[]::new), ClassLoader.getPlatformClassLoader());
  }

  @Test
  void aServerOnTheInMemoryStoreStartsAndReplaysWithoutGateJdbc() throws Exception {
    Thread thread = Thread.currentThread();
    ClassLoader before = thread.getContextClassLoader();
    try (URLClassLoader loader = withoutJdbc()) {
      assertThatThrownBy(() -> loader.loadClass("dev.mcpgate.jdbc.JdbcIdempotencyStore"))
          .as("the class path of this test has no gate-jdbc")
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
