package dev.mcpgate.webstack;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.security.config.Customizer;
import org.springframework.security.config.web.server.ServerHttpSecurity;
import org.springframework.security.core.userdetails.MapReactiveUserDetailsService;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.web.server.SecurityWebFilterChain;

/**
 * {@link StackContract} on WebFlux (Spring AI 2.0.0's WebFlux Streamable HTTP transport, Reactor
 * Netty): the same bodies as on WebMVC, SYNC and ASYNC tools.
 */
class WebFluxStackTest extends StackContract {

  @Override
  protected Class<?> security() {
    return ReactiveSecurity.class;
  }

  /** HTTP Basic, alice and bob; anonymous callers let in. */
  @Configuration(proxyBeanMethods = false)
  static class ReactiveSecurity {
    @Bean
    SecurityWebFilterChain security(ServerHttpSecurity http) {
      return http.csrf(c -> c.disable())
          .authorizeExchange(a -> a.anyExchange().permitAll())
          .httpBasic(Customizer.withDefaults())
          .build();
    }

    @Bean
    MapReactiveUserDetailsService users() {
      return new MapReactiveUserDetailsService(
          User.withUsername("alice").password("{noop}alice-pw").roles("USER").build(),
          User.withUsername("bob").password("{noop}bob-pw").roles("USER").build());
    }
  }
}
