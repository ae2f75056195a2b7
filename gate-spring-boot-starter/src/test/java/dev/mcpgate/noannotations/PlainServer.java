package dev.mcpgate.noannotations;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.web.SecurityFilterChain;

/**
 * A Spring Boot 4 / Spring AI 2 MCP server whose class path has no spring-ai-mcp-annotations (an
 * optional dependency of Spring AI 2's MCP server auto-configuration: an application that declares
 * its tools as specifications, or excludes the module, has none). Review test server.
 */
@SpringBootConfiguration
@EnableAutoConfiguration
public class PlainServer {
  @Bean
  SecurityFilterChain open(HttpSecurity http) throws Exception {
    return http.csrf(c -> c.disable())
        .authorizeHttpRequests(a -> a.anyRequest().permitAll())
        .build();
  }

  /** Starts the server and stops it: the startup must not be refused. */
  public static String run() {
    org.apache.catalina.webresources.TomcatURLStreamHandlerFactory.disable();
    try (ConfigurableApplicationContext app =
        new SpringApplicationBuilder(PlainServer.class)
            .properties(
                "server.port=0",
                "spring.main.banner-mode=off",
                "spring.ai.mcp.server.protocol=STREAMABLE",
                "mcpgate.store=memory",
                "mcpgate.tenant.constant=demo",
                "mcpgate.tenant.sources=constant")
            .run()) {
      return "started";
    }
  }
}
