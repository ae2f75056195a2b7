package dev.mcpgate.webstack;

import static dev.mcpgate.webstack.StackContract.client;
import static dev.mcpgate.webstack.StackContract.server;
import static dev.mcpgate.webstack.StackContract.table;
import static dev.mcpgate.webstack.StackContract.tenants;
import static dev.mcpgate.webstack.StackContract.text;
import static dev.mcpgate.webstack.StackContract.transfer;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.mcpgate.spring.StartupFailures;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.json.McpJsonDefaults;
import io.modelcontextprotocol.server.transport.StdioServerTransportProvider;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import io.modelcontextprotocol.spec.McpStreamableServerSession;
import io.modelcontextprotocol.spec.McpStreamableServerTransportProvider;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.ai.mcp.server.webflux.transport.WebFluxStreamableServerTransportProvider;
import org.springframework.boot.diagnostics.FailureAnalysis;
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
    FailureAnalysis analysis =
        refusal(
            table("opaque", "SYNC"),
            "mcpgate.tenant.constant=shared",
            "mcpgate.tenant.sources=principal,constant");
    assertThat(analysis.getDescription())
        .contains("cannot gate the sync tools of this WebFlux server")
        .contains(OpaqueTransport.class.getName())
        .contains("the tenant source principal")
        .contains("refused with tenant_unknown")
        .doesNotContain("ASYNC");
    assertThat(analysis.getAction())
        .contains("spring.ai.mcp.server.type=ASYNC")
        .contains("declare a TenantResolver bean");
  }

  @Test
  void aTenantHeaderFirstRefusesToStartToo() {
    FailureAnalysis analysis =
        refusal(
            table("opaque_hdr", "SYNC"),
            "mcpgate.tenant.from-principal=false",
            "mcpgate.tenant.header=X-Tenant");
    assertThat(analysis.getDescription()).contains("the tenant source header");
    assertThat(analysis.getAction()).contains("spring.ai.mcp.server.type=ASYNC");
  }

  /**
   * @return the failure analysis Spring Boot reports for the refused startup of the opaque
   *     transport's sync tools
   */
  private static FailureAnalysis refusal(String table, String... properties) {
    List<String> all = new java.util.ArrayList<>(List.of(properties));
    all.add(NO_SPRING_AI_TRANSPORT);
    Throwable thrown =
        catchThrowable(
            () -> server(CONFIGURATION, "SYNC", table, all.toArray(String[]::new)).close());
    assertThat(thrown).as("the startup failed").isNotNull();
    FailureAnalysis analysis = StartupFailures.analysis(thrown);
    assertThat(analysis).as("a failure analysis of %s", thrown).isNotNull();
    return analysis;
  }

  /**
   * A stdio transport beside Spring AI's WebFlux one, which the MCP server keeps (this one is no
   * candidate for it, and never reads the stdin of this test).
   */
  @Configuration(proxyBeanMethods = false)
  static class StdioTransportConfiguration {
    @Bean(autowireCandidate = false)
    StdioServerTransportProvider stdioTransport() {
      return new StdioServerTransportProvider(
          McpJsonDefaults.getMapper(),
          InputStream.nullInputStream(),
          OutputStream.nullOutputStream());
    }
  }

  @Test
  void aStdioTransportServesNoRequestAndIsNoReasonToRefuseSyncTools() {
    String table = table("opaque_stdio", "SYNC");
    try (ConfigurableApplicationContext app =
        server(
            List.of(WebFluxStackTest.ReactiveSecurity.class, StdioTransportConfiguration.class),
            "SYNC",
            table,
            "mcpgate.tenant.constant=shared",
            "mcpgate.tenant.sources=principal,constant")) {
      McpSyncClient alice = client(app, "alice", (String) null);
      try {
        CallToolResult result = transfer(alice, "k1", 100);
        assertThat(result.isError()).as(text(result)).isNotEqualTo(Boolean.TRUE);
        assertThat(tenants(app, table)).containsExactly("principal:alice");
      } finally {
        alice.closeGracefully();
      }
    }
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
