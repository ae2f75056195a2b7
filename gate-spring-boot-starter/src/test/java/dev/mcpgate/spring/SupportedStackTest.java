package dev.mcpgate.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URL;
import java.net.URLClassLoader;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringBootVersion;

/**
 * The starter's check of the Spring lines it runs on, with the versions and class paths of other
 * lines (the Boot 3 module runs it on a real Spring Boot 3.5 with Spring AI 1.1).
 */
class SupportedStackTest {

  /** This module's own class path: Spring Boot 4 and Spring AI 2, the supported lines. */
  @Test
  void thisModulesSpringBootAndSpringAiPass() {
    assertThat(SpringBootVersion.getVersion()).startsWith("4.");
    assertThatCode(
            () ->
                SupportedStack.check(
                    SpringBootVersion.getVersion(), SupportedStackTest.class.getClassLoader()))
        .doesNotThrowAnyException();
  }

  @Test
  void springBoot3IsRefusedNamingItsVersionAndTheWayOut() {
    assertThatThrownBy(
            () -> SupportedStack.check("3.5.7", SupportedStackTest.class.getClassLoader()))
        .isInstanceOf(StartupFailure.class)
        .hasMessageContaining("needs Spring Boot 4.0 and Spring AI 2.0")
        .hasMessageContaining("runs Spring Boot 3.5.7")
        .satisfies(
            e ->
                assertThat(((StartupFailure) e).action())
                    .contains("gate-core's IdempotencyGate")
                    .contains("docs/spring-boot.md"));
  }

  /** Spring AI's MCP server without Spring AI 2's auto-configuration class: the 1.x line. */
  @Test
  void springAi1IsRefusedEvenOnSpringBoot4() throws Exception {
    ClassLoader app = SupportedStackTest.class.getClassLoader();
    try (URLClassLoader withoutSpringAi2 =
        new URLClassLoader(new URL[0], app) {
          @Override
          protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
            if (name.equals(SupportedStack.SPRING_AI_2)) {
              throw new ClassNotFoundException(name);
            }
            return super.loadClass(name, resolve);
          }
        }) {
      assertThatThrownBy(() -> SupportedStack.check("4.0.7", withoutSpringAi2))
          .isInstanceOf(StartupFailure.class)
          .hasMessageContaining("with Spring AI 1.x");
    }
  }

  @Test
  void aVersionItCannotReadIsNotRefused() {
    assertThatCode(() -> SupportedStack.check(null, SupportedStackTest.class.getClassLoader()))
        .doesNotThrowAnyException();
    assertThatCode(() -> SupportedStack.check("main", SupportedStackTest.class.getClassLoader()))
        .doesNotThrowAnyException();
  }
}
