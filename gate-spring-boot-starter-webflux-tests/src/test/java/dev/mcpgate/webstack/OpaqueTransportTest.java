package dev.mcpgate.webstack;

import static dev.mcpgate.webstack.StackContract.client;
import static dev.mcpgate.webstack.StackContract.server;
import static dev.mcpgate.webstack.StackContract.table;
import static dev.mcpgate.webstack.StackContract.tenants;
import static dev.mcpgate.webstack.StackContract.text;
import static dev.mcpgate.webstack.StackContract.transfer;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import io.modelcontextprotocol.spec.McpStreamableServerSession;
import io.modelcontextprotocol.spec.McpStreamableServerTransportProvider;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.ai.mcp.server.webflux.transport.WebFluxStreamableServerTransportProvider;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.web.reactive.function.server.RouterFunction;
import reactor.core.publisher.Mono;

/**
 * A WebFlux server whose MCP transport has no context extractor the starter can wrap (here a
 * transport of the application's own that hides Spring AI's; so would a Spring AI that keeps its
 * extractor elsewhere): its sync tools cannot be gated per principal, so the server refuses to
 * start and names the setting that works, instead of refusing every call. That setting works.
 */
class OpaqueTransportTest {
  private static final String NO_SPRING_AI_TRANSPORT =
      "spring.autoconfigure.exclude=org.springframework.ai.mcp.server.webflux.autoconfigure"
          + ".McpServerStreamableHttpWebFluxAutoConfiguration";

  /** Spring AI's WebFlux transport inside one of the application's own, with no extractor. */
  static final class OpaqueTransport implements McpStreamableServerTransportProvider {
    private final WebFluxStreamableServerTransportProvider inner;

    OpaqueTransport(WebFluxStreamableServerTransportProvider inner) {
      this.inner = inner;
    }

    @Override
    public void setSessionFactory(McpStreamableServerSession.Factory sessionFactory) {
      inner.setSessionFactory(sessionFactory);
    }

    @Override
    public Mono<Void> notifyClients(String method, Object params) {
      return inner.notifyClients(method, params);
    }

    @Override
    public Mono<Void> closeGracefully() {
      return inner.closeGracefully();
    }

    @Override
    public List<String> protocolVersions() {
      return inner.protocolVersions();
    }
  }

  @Configuration(proxyBeanMethods = false)
  static class OpaqueTransportConfiguration {
    private final WebFluxStreamableServerTransportProvider inner =
        WebFluxStreamableServerTransportProvider.builder().messageEndpoint("/mcp").build();

    @Bean
    OpaqueTransport opaqueTransport() {
      return new OpaqueTransport(inner);
    }

    @Bean
    RouterFunction<?> opaqueRouterFunction() {
      return inner.getRouterFunction();
    }
  }

  private static final List<Class<?>> CONFIGURATION =
      List.of(WebFluxStackTest.ReactiveSecurity.class, OpaqueTransportConfiguration.class);

  @Test
  void syncToolsWithThePrincipalAsTenantRefuseToStartAndNameTheSettingThatWorks() {
    assertThatThrownBy(
            () ->
                server(
                        CONFIGURATION,
                        "SYNC",
                        table("opaque", "SYNC"),
                        NO_SPRING_AI_TRANSPORT,
                        "mcpgate.tenant.constant=shared",
                        "mcpgate.tenant.sources=principal,constant")
                    .close())
        .hasStackTraceContaining("cannot gate the sync tools of this WebFlux server")
        .hasStackTraceContaining(OpaqueTransport.class.getName())
        .hasStackTraceContaining("spring.ai.mcp.server.type=ASYNC");
  }

  @Test
  void aTenantHeaderFirstRefusesToStartToo() {
    assertThatThrownBy(
            () ->
                server(
                        CONFIGURATION,
                        "SYNC",
                        table("opaque_hdr", "SYNC"),
                        NO_SPRING_AI_TRANSPORT,
                        "mcpgate.tenant.from-principal=false",
                        "mcpgate.tenant.header=X-Tenant")
                    .close())
        .hasStackTraceContaining("the tenant source header")
        .hasStackTraceContaining("spring.ai.mcp.server.type=ASYNC");
  }

  @Test
  void theSettingItNamesWorksAsyncToolsAreGatedPerPrincipal() {
    String table = table("opaque", "ASYNC");
    try (ConfigurableApplicationContext app =
        server(
            CONFIGURATION,
            "ASYNC",
            table,
            NO_SPRING_AI_TRANSPORT,
            "mcpgate.tenant.constant=shared",
            "mcpgate.tenant.sources=principal,constant")) {
      McpSyncClient alice = client(app, "alice", (String) null);
      McpSyncClient bob = client(app, "bob", (String) null);
      try {
        int before = StackServer.TRANSFERS.get();
        CallToolResult fromAlice = transfer(alice, "k1", 100);
        CallToolResult fromBob = transfer(bob, "k1", 100);

        assertThat(fromAlice.isError()).as(text(fromAlice)).isNotEqualTo(Boolean.TRUE);
        assertThat(text(fromBob)).isNotEqualTo(text(fromAlice));
        assertThat(StackServer.TRANSFERS.get()).isEqualTo(before + 2);
        assertThat(tenants(app, table)).containsExactly("principal:alice", "principal:bob");
      } finally {
        alice.closeGracefully();
        bob.closeGracefully();
      }
    }
  }

  @Test
  void syncToolsOfOneConstantTenantStartAndRun() {
    String table = table("opaque_const", "SYNC");
    try (ConfigurableApplicationContext app =
        server(
            CONFIGURATION,
            "SYNC",
            table,
            NO_SPRING_AI_TRANSPORT,
            "mcpgate.tenant.from-principal=false",
            "mcpgate.tenant.constant=acme")) {
      McpSyncClient c = client(app, null, (String) null);
      try {
        CallToolResult first = transfer(c, "k1", 100);
        CallToolResult retry = transfer(c, "k1", 100);
        assertThat(first.isError()).as(text(first)).isNotEqualTo(Boolean.TRUE);
        assertThat(text(retry)).isEqualTo(text(first));
        assertThat(tenants(app, table)).containsExactly("constant:acme");
      } finally {
        c.closeGracefully();
      }
    }
  }
}
