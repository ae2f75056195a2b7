package dev.mcpgate.tenancy;

import dev.mcpgate.mcp.Idempotent;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.concurrent.atomic.AtomicInteger;
import org.springframework.ai.mcp.annotation.McpTool;
import org.springframework.ai.mcp.annotation.McpToolParam;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.security.config.Customizer;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.core.userdetails.UserDetailsService;
import org.springframework.security.oauth2.jwt.BadJwtException;
import org.springframework.security.oauth2.jwt.Jwt;
import org.springframework.security.provisioning.InMemoryUserDetailsManager;
import org.springframework.security.web.SecurityFilterChain;
import reactor.core.publisher.Mono;

/**
 * A Spring AI MCP server behind Spring Security (HTTP Basic, users alice and bob; bearer JWTs of
 * any issuer, see {@link #bearer}; anonymous callers are let in too, so that a header alone can try
 * its luck), with one gated write tool, {@code transfer_funds}, as a sync ({@link SyncTools}) or an
 * async ({@link AsyncTools}) tool. No component scan: the test says which tools bean the
 * application gets.
 */
@SpringBootConfiguration
@EnableAutoConfiguration
public class TransferServer {
  static final AtomicInteger TRANSFERS = new AtomicInteger();

  @Bean
  SecurityFilterChain security(HttpSecurity http) throws Exception {
    return http.csrf(c -> c.disable())
        .authorizeHttpRequests(a -> a.anyRequest().permitAll())
        .httpBasic(Customizer.withDefaults())
        .oauth2ResourceServer(o -> o.jwt(j -> j.decoder(TransferServer::decode)))
        .build();
  }

  /**
   * @return a bearer token that this server takes as a JWT from {@code issuer} for {@code subject}
   *     (a test token: not signed, the two names base64url-encoded)
   */
  static String bearer(String issuer, String subject) {
    return Base64.getUrlEncoder()
        .withoutPadding()
        .encodeToString((issuer + "\n" + subject).getBytes(StandardCharsets.UTF_8));
  }

  /** A test token's issuer and subject as a JWT, as a resource server's decoder would give. */
  private static Jwt decode(String token) {
    String[] parts;
    try {
      parts = new String(Base64.getUrlDecoder().decode(token), StandardCharsets.UTF_8).split("\n");
    } catch (IllegalArgumentException e) {
      throw new BadJwtException("not a test token", e);
    }
    if (parts.length != 2) {
      throw new BadJwtException("not a test token");
    }
    return Jwt.withTokenValue(token)
        .header("alg", "none")
        .issuer(parts[0])
        .subject(parts[1])
        .build();
  }

  @Bean
  UserDetailsService users() {
    return new InMemoryUserDetailsManager(
        User.withUsername("alice").password("{noop}alice-pw").roles("USER").build(),
        User.withUsername("bob").password("{noop}bob-pw").roles("USER").build());
  }

  static String transfer(String to, int cents) {
    return "transfer " + TRANSFERS.incrementAndGet() + " of " + cents + " cents to " + to;
  }

  /** The tool as a sync specification. */
  public static class SyncTools {
    @McpTool(name = "transfer_funds", description = "Move money to an account")
    @Idempotent
    public String transfer(
        @McpToolParam(description = "the account") String to,
        @McpToolParam(description = "the amount in cents") int cents) {
      return TransferServer.transfer(to, cents);
    }
  }

  /** The tool as an async specification. */
  public static class AsyncTools {
    @McpTool(name = "transfer_funds", description = "Move money to an account")
    @Idempotent
    public Mono<String> transfer(
        @McpToolParam(description = "the account") String to,
        @McpToolParam(description = "the amount in cents") int cents) {
      return Mono.fromSupplier(() -> TransferServer.transfer(to, cents));
    }
  }
}
