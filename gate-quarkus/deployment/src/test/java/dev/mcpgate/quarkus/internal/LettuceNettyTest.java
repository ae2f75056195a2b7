package dev.mcpgate.quarkus.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Enumeration;
import org.junit.jupiter.api.Test;

/**
 * The startup check that Lettuce runs on the application's Netty ({@link LettuceNetty}), on real
 * class paths: this module's (Lettuce 6.8.1 on Quarkus' Netty 4.1.130), and the real Lettuce 7.7
 * jar (gate-redis' own, from the local repository) in front of that same Netty, which is what an
 * application that adds gate-redis without the pin has. A {@code QuarkusUnitTest} cannot be given
 * that second class path, so the check is tested directly; {@code RedisStores} runs it when {@code
 * mcpgate.store=redis}, before it builds the store.
 */
class LettuceNettyTest {

  @Test
  void lettuce681OnQuarkusNetty41Passes() {
    assertThat(LettuceNetty.problem(getClass().getClassLoader())).isEmpty();
  }

  @Test
  void lettuce7OnQuarkusNetty41StopsTheStartupNamingThePin() throws Exception {
    try (URLClassLoader lettuce7 = lettuce7First()) {
      assertThat(lettuce7.loadClass("io.netty.channel.MultithreadEventLoopGroup"))
          .isNotNull(); // Netty 4.1's own classes are there ...
      assertThatThrownBy(() -> lettuce7.loadClass(LettuceNetty.NETTY_42_CLASS))
          .isInstanceOf(ClassNotFoundException.class); // ... Netty 4.2's are not

      assertThat(LettuceNetty.problem(lettuce7))
          .hasValueSatisfying(
              problem ->
                  assertThat(problem)
                      .contains("Lettuce 7.7.0.RELEASE")
                      .contains("needs Netty 4.2")
                      .contains("Netty 4.1.130.Final")
                      .contains(LettuceNetty.NETTY_42_CLASS)
                      .contains(
                          "<groupId>io.lettuce</groupId><artifactId>lettuce-core</artifactId>"
                              + "<version>6.8.1.RELEASE</version>"));
    }
  }

  @Test
  void withoutTheCheckLettuce7OnNetty41FailsAtItsFirstConnection() throws Exception {
    try (URLClassLoader lettuce7 = lettuce7First()) {
      Class<?> redisClient = lettuce7.loadClass("io.lettuce.core.RedisClient");
      assertThat(redisClient.getClassLoader()).isSameAs(lettuce7);
      Throwable failure = null;
      Object client = null;
      try {
        client = redisClient.getMethod("create", String.class).invoke(null, "redis://127.0.0.1:1");
        redisClient.getMethod("connect").invoke(client);
      } catch (ReflectiveOperationException | LinkageError e) {
        failure = e;
      } finally {
        if (client != null) {
          redisClient.getMethod("shutdown").invoke(client);
        }
      }
      assertThat(failure).as("Lettuce 7 on Netty 4.1").isNotNull();
      assertThat(failure).hasStackTraceContaining("io/netty/channel/MultiThreadIoEventLoopGroup");
    }
  }

  @Test
  void lettuce7OnANettyThatHasTheClassPasses() throws Exception {
    Path dir = Files.createTempDirectory("netty42");
    Path cls = dir.resolve(LettuceNetty.NETTY_42_CLASS.replace('.', '/') + ".class");
    Files.createDirectories(cls.getParent());
    Files.write(cls, new byte[] {(byte) 0xCA, (byte) 0xFE}); // found by name, never loaded
    try (URLClassLoader lettuce7 = lettuce7First();
        URLClassLoader withNetty42 =
            new URLClassLoader(new URL[] {dir.toUri().toURL()}, lettuce7)) {
      assertThat(LettuceNetty.problem(withNetty42)).isEmpty();
    }
  }

  @Test
  void theMajorVersionIsTheLeadingNumber() {
    assertThat(LettuceNetty.major("7.7.0.RELEASE")).isEqualTo(7);
    assertThat(LettuceNetty.major("6.8.1.RELEASE")).isEqualTo(6);
    assertThat(LettuceNetty.major("10.0.0")).isEqualTo(10);
    assertThat(LettuceNetty.major("x")).isZero();
  }

  /**
   * The real Lettuce 7.7 jar, asked first for its own classes and resources, in front of this
   * module's class path (Netty 4.1.130).
   */
  private static URLClassLoader lettuce7First() throws IOException {
    Path jar = Path.of(System.getProperty("lettuce7.jar", "lettuce7.jar-not-set"));
    assertThat(jar).as("gate-redis' Lettuce 7 jar (surefire's lettuce7.jar)").isRegularFile();
    return new URLClassLoader(
        new URL[] {jar.toUri().toURL()}, LettuceNettyTest.class.getClassLoader()) {
      @Override
      public URL getResource(String name) {
        URL own = findResource(name);
        return own != null ? own : super.getResource(name);
      }

      @Override
      public Enumeration<URL> getResources(String name) throws IOException {
        Enumeration<URL> own = findResources(name);
        return own.hasMoreElements() ? own : super.getResources(name);
      }

      @Override
      protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
        synchronized (getClassLoadingLock(name)) {
          Class<?> c = findLoadedClass(name);
          if (c == null && name.startsWith("io.lettuce.")) {
            try {
              c = findClass(name);
            } catch (ClassNotFoundException e) {
              c = null;
            }
          }
          return c != null ? c : super.loadClass(name, resolve);
        }
      }
    };
  }
}
