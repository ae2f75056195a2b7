package dev.mcpgate.webstack;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.security.config.Customizer;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.core.userdetails.UserDetailsService;
import org.springframework.security.provisioning.InMemoryUserDetailsManager;
import org.springframework.security.web.SecurityFilterChain;

/** {@link StackContract} on WebMVC (Spring AI's WebMVC Streamable HTTP transport, Tomcat). */
class WebMvcStackTest extends StackContract {

  @Override
  protected Class<?> security() {
    return ServletSecurity.class;
  }

  /** HTTP Basic, alice and bob; anonymous callers let in. */
  @Configuration(proxyBeanMethods = false)
  static class ServletSecurity {
    @Bean
    SecurityFilterChain security(HttpSecurity http) throws Exception {
      return http.csrf(c -> c.disable())
          .authorizeHttpRequests(a -> a.anyRequest().permitAll())
          .httpBasic(Customizer.withDefaults())
          .build();
    }

    @Bean
    UserDetailsService users() {
      return new InMemoryUserDetailsManager(
          User.withUsername("alice").password("{noop}alice-pw").roles("USER").build(),
          User.withUsername("bob").password("{noop}bob-pw").roles("USER").build());
    }
  }
}
