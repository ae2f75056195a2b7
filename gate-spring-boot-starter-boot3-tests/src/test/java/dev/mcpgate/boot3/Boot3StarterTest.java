package dev.mcpgate.boot3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.mcpgate.mcp.Idempotent;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springaicommunity.mcp.annotation.McpTool;
import org.springaicommunity.mcp.annotation.McpToolParam;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.SpringBootVersion;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.annotation.Bean;

/**
 * MCP Gate's starter in a Spring Boot 3.5 application with Spring AI 1.1's MCP server and a gated
 * tool: the starter is built for Spring Boot 4 and Spring AI 2, and stops the startup at once,
 * saying what runs and what to do, before Spring AI's beans meet the second MCP SDK.
 */
class Boot3StarterTest {

  @SpringBootConfiguration
  @EnableAutoConfiguration
  static class MailServer {
    @Bean
    MailTools mailTools() {
      return new MailTools();
    }
  }

  /** A Spring AI 1.1 tool, gated as the starter's docs show. */
  static class MailTools {
    @McpTool(name = "send_mail", description = "Send a mail")
    @Idempotent
    public String send(@McpToolParam(description = "to whom") String to) {
      return "sent to " + to;
    }
  }

  @Test
  void thisIsSpringBoot3() {
    assertThat(SpringBootVersion.getVersion()).startsWith("3.");
  }

  @Test
  void theStarterStopsTheStartupNamingTheLinesAndTheWayOut() {
    SpringApplicationBuilder app =
        new SpringApplicationBuilder(MailServer.class)
            .properties(
                "server.port=0",
                "spring.main.banner-mode=off",
                "spring.ai.mcp.server.protocol=STREAMABLE",
                "mcpgate.store=memory",
                "mcpgate.tenant.constant=demo");

    assertThatThrownBy(app::run)
        .satisfies(
            e -> {
              List<Throwable> chain = new ArrayList<>();
              for (Throwable t = e; t != null; t = t.getCause()) {
                chain.add(t);
              }
              assertThat(chain)
                  .as("refused by the check, not by a clash of the two SDKs")
                  .noneMatch(t -> t instanceof LinkageError);
              Throwable refusal = chain.get(chain.size() - 1);
              assertThat(refusal.getClass().getName()).isEqualTo("dev.mcpgate.spring.StartupFailure");
              assertThat(refusal)
                  .hasMessageContaining("needs Spring Boot 4.0 and Spring AI 2.0")
                  .hasMessageContaining("runs Spring Boot " + SpringBootVersion.getVersion())
                  .hasMessageContaining("with Spring AI 1.x");
            });
  }
}
