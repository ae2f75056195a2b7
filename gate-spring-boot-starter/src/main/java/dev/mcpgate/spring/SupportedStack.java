package dev.mcpgate.spring;

import org.springframework.util.ClassUtils;

/**
 * The Spring lines this starter is built and tested on: Spring Boot 4 with Spring AI 2 (whose MCP
 * Java SDK 2.x the gate's adapter is compiled against). On Spring Boot 3 with Spring AI 1.1, the
 * application gets two MCP SDKs (0.17 from Spring AI, 2.x from the adapter) that share packages,
 * and fails later with a {@code NoSuchMethodError} in Spring AI's own beans, or not at all until a
 * tool is called; this check stops the startup first, saying what runs and what to do.
 */
final class SupportedStack {
  /**
   * A class of Spring AI 2's MCP server auto-configuration (2.0.0 and 2.0.1) that 1.1 does not have
   * (its counterpart there is {@code McpServerObjectMapperAutoConfiguration}). Not the {@code
   * McpTool} annotation: its module is optional in Spring AI 2, and a server without it is
   * supported.
   */
  static final String SPRING_AI_2 =
      "org.springframework.ai.mcp.server.common.autoconfigure.McpServerJsonMapperAutoConfiguration";

  /** Spring AI's MCP server, of either line. */
  static final String SPRING_AI_MCP_SERVER =
      "org.springframework.ai.mcp.server.common.autoconfigure.McpServerAutoConfiguration";

  private SupportedStack() {}

  /**
   * @param bootVersion Spring Boot's version as it reports it (null when it cannot tell)
   * @param loader the application's class loader
   * @throws StartupFailure when Spring Boot is older than 4, or Spring AI's MCP server is of the
   *     1.x line
   */
  static void check(String bootVersion, ClassLoader loader) {
    boolean oldBoot = bootVersion != null && major(bootVersion) < 4;
    boolean oldSpringAi =
        ClassUtils.isPresent(SPRING_AI_MCP_SERVER, loader)
            && !ClassUtils.isPresent(SPRING_AI_2, loader);
    if (!oldBoot && !oldSpringAi) {
      return;
    }
    throw new StartupFailure(
        "MCP Gate's Spring Boot starter needs Spring Boot 4.0 and Spring AI 2.0; this application"
            + " runs "
            + (oldBoot ? "Spring Boot " + bootVersion : "Spring Boot " + bootVersion + " but")
            + (oldSpringAi ? " with Spring AI 1.x (its MCP Java SDK is 0.x)" : "")
            + ". The starter's adapter is built on the MCP Java SDK 2.x, which cannot share a"
            + " class path with Spring AI 1.x's SDK.",
        "Move to Spring Boot 4.0 and Spring AI 2.0. To stay on Spring Boot 3, remove"
            + " gate-spring-boot-starter (and gate-mcp-adapter) and gate each tool's body with"
            + " gate-core's IdempotencyGate, on a store of gate-jdbc, gate-dynamodb or gate-redis:"
            + " docs/spring-boot.md, \"Spring Boot 3\".",
        null);
  }

  private static int major(String version) {
    int dot = version.indexOf('.');
    try {
      return Integer.parseInt(dot < 0 ? version : version.substring(0, dot));
    } catch (NumberFormatException e) {
      return Integer.MAX_VALUE; // a version it cannot read is not refused
    }
  }
}
