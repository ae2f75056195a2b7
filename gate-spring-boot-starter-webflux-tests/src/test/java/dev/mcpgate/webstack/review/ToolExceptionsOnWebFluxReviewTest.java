package dev.mcpgate.webstack.review;

import dev.mcpgate.webstack.ToolExceptionsContract;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.security.config.web.server.ServerHttpSecurity;
import org.springframework.security.web.server.SecurityWebFilterChain;

/** {@link ToolExceptionsContract} on Spring AI 2.0.0's WebFlux server (Reactor Netty). */
class ToolExceptionsOnWebFluxReviewTest extends ToolExceptionsContract {
  @Override
  protected Class<?> openSecurity() {
    return OpenSecurity.class;
  }

  /** Every request let in. */
  @Configuration(proxyBeanMethods = false)
  static class OpenSecurity {
    @Bean
    SecurityWebFilterChain open(ServerHttpSecurity http) {
      return http.csrf(c -> c.disable())
          .authorizeExchange(a -> a.anyExchange().permitAll())
          .build();
    }
  }
}
