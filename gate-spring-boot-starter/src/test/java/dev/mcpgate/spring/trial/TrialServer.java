package dev.mcpgate.spring.trial;

import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import java.util.Map;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.web.SecurityFilterChain;

/**
 * A Spring AI MCP server (WebMVC, Streamable HTTP) on the in-memory store with a constant tenant,
 * for the trial of docs/adapters.md. Deliberately not a {@code @Configuration}: the test servers of
 * {@code dev.mcpgate.spring} scan this package, and must not take it in. Its tools are the other
 * primary source each test gives.
 */
@EnableAutoConfiguration
public class TrialServer {

  /** Open to all: Spring Security is on the tests' class path. */
  @Bean
  SecurityFilterChain open(HttpSecurity http) throws Exception {
    return http.csrf(c -> c.disable())
        .authorizeHttpRequests(a -> a.anyRequest().permitAll())
        .build();
  }

  /**
   * @param tools the class whose {@code @McpTool} methods the server has (made a bean)
   */
  static SpringApplicationBuilder server(Class<?> tools, String... properties) {
    org.apache.catalina.webresources.TomcatURLStreamHandlerFactory.disable();
    return new SpringApplicationBuilder(TrialServer.class, tools)
        .properties(
            "server.port=0",
            "spring.main.banner-mode=off",
            "spring.ai.mcp.server.protocol=STREAMABLE",
            "mcpgate.store=memory",
            "mcpgate.tenant.constant=trial",
            "mcpgate.tenant.sources=constant",
            "spring.autoconfigure.exclude="
                + "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration")
        .properties(properties);
  }

  /** A client of the server that sends these headers on every request. */
  static McpSyncClient client(ConfigurableApplicationContext app, Map<String, String> headers) {
    int port = ((WebServerApplicationContext) app).getWebServer().getPort();
    McpSyncClient c =
        McpClient.sync(
                HttpClientStreamableHttpTransport.builder("http://127.0.0.1:" + port)
                    .endpoint("/mcp")
                    .httpRequestCustomizer(
                        (request, method, uri, body, ctx) -> headers.forEach(request::header))
                    .build())
            .build();
    c.initialize();
    return c;
  }
}
