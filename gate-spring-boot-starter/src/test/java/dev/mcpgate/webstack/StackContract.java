package dev.mcpgate.webstack;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.jdbc.TestDatabases;
import dev.mcpgate.mcp.McpGateErrors;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * What the starter promises on every web stack, with SYNC and ASYNC tool specifications: a real
 * Spring Boot application (Spring AI's MCP server over Streamable HTTP) behind Spring Security
 * (HTTP Basic, alice and bob) on a real PostgreSQL, called by real MCP clients (the SDK's client
 * over Streamable HTTP). Two users with the same key never see each other's results, a retry
 * replays, other arguments conflict, racing copies run once, and a caller without a tenant is
 * refused. Each stack's test ({@code WebMvcStackTest}, {@code WebFluxStackTest}) says its security
 * configuration; the bodies are these.
 */
public abstract class StackContract {

  /**
   * @return the stack's Spring Security configuration: HTTP Basic users alice ({@code alice-pw})
   *     and bob ({@code bob-pw}), CSRF off, every request let in (anonymous callers too)
   */
  protected abstract Class<?> security();

  /** A fresh claims table per application, so that its rows are this test's rows. */
  protected ConfigurableApplicationContext server(String type, String table, String... properties) {
    return server(List.of(security()), type, table, properties);
  }

  /**
   * @param configurations the stack's security configuration, and any more of the test's
   * @param type SYNC or ASYNC
   * @param table the claims table, made at startup
   * @return a running server of {@link StackServer} and the configurations, with the tool of the
   *     type, on a real PostgreSQL
   */
  public static ConfigurableApplicationContext server(
      List<Class<?>> configurations, String type, String table, String... properties) {
    TestDatabases.Target pg = TestDatabases.postgres();
    List<Class<?>> sources = new ArrayList<>();
    sources.add(StackServer.class);
    sources.addAll(configurations);
    sources.add("ASYNC".equals(type) ? StackServer.AsyncTools.class : StackServer.SyncTools.class);
    SpringApplicationBuilder b =
        new SpringApplicationBuilder(sources.toArray(Class<?>[]::new))
            .properties(
                "server.port=0",
                "spring.datasource.url=" + pg.url(),
                "spring.datasource.hikari.maximum-pool-size=4",
                "mcpgate.create-schema-if-missing=true",
                "mcpgate.table-name=" + table,
                "mcpgate.purge.enabled=false",
                "spring.main.banner-mode=off",
                "spring.ai.mcp.server.protocol=STREAMABLE",
                "spring.ai.mcp.server.type=" + type);
    if (pg.user() != null) {
      b.properties(
          "spring.datasource.username=" + pg.user(), "spring.datasource.password=" + pg.password());
    }
    return b.properties(properties).run();
  }

  /**
   * @param user alice or bob (HTTP Basic), or null for an anonymous caller
   * @param tenantHeader the X-Tenant header, or null for none
   */
  public static McpSyncClient client(
      ConfigurableApplicationContext app, String user, String tenantHeader) {
    return client(app, user, tenantHeader == null ? List.of() : List.of(tenantHeader));
  }

  /**
   * @param user alice or bob (HTTP Basic), or null for an anonymous caller
   * @param tenantHeaders each X-Tenant header line the client sends
   */
  public static McpSyncClient client(
      ConfigurableApplicationContext app, String user, List<String> tenantHeaders) {
    int port = ((WebServerApplicationContext) app).getWebServer().getPort();
    McpSyncClient c =
        McpClient.sync(
                HttpClientStreamableHttpTransport.builder("http://127.0.0.1:" + port)
                    .endpoint("/mcp")
                    .httpRequestCustomizer(
                        (request, method, uri, body, ctx) -> {
                          if (user != null) {
                            request.header(
                                "Authorization",
                                "Basic "
                                    + Base64.getEncoder()
                                        .encodeToString(
                                            (user + ":" + user + "-pw")
                                                .getBytes(StandardCharsets.UTF_8)));
                          }
                          for (String line : tenantHeaders) {
                            request.header("X-Tenant", line); // adds a line, replaces none
                          }
                        })
                    .build())
            .build();
    c.initialize();
    return c;
  }

  public static CallToolResult transfer(McpSyncClient client, String key, String to, int cents) {
    return client.callTool(
        new CallToolRequest(
            "transfer_funds", Map.of("to", to, "cents", cents, "idempotency_key", key)));
  }

  public static CallToolResult transfer(McpSyncClient client, String key, int cents) {
    return transfer(client, key, "acct_carol", cents);
  }

  public static boolean replayed(CallToolResult r) {
    return r.meta() != null && Boolean.TRUE.equals(r.meta().get("dev.mcpgate/replayed"));
  }

  public static String text(CallToolResult r) {
    return ((McpSchema.TextContent) r.content().get(0)).text();
  }

  @SuppressWarnings("unchecked")
  public static String errorType(CallToolResult r) {
    if (!(r.structuredContent() instanceof Map<?, ?> content)
        || !(content.get("error") instanceof Map<?, ?> error)) {
      return null;
    }
    return (String) ((Map<String, Object>) error).get("type");
  }

  public static List<String> tenants(ConfigurableApplicationContext app, String table) {
    return app.getBean(JdbcTemplate.class)
        .queryForList("SELECT tenant FROM " + table + " ORDER BY tenant", String.class);
  }

  public static String table(String what, String type) {
    return "mcpgate_stack_" + what + "_" + type.toLowerCase() + "_" + System.nanoTime();
  }

  @ParameterizedTest(name = "{0} tools")
  @ValueSource(strings = {"SYNC", "ASYNC"})
  void twoUsersWithTheSameKeyNeverSeeEachOthersResults(String type) {
    String table = table("users", type);
    // the configuration of issue 20: a constant is set, and must not become everyone's tenant
    try (ConfigurableApplicationContext app =
        server(type, table, "mcpgate.tenant.constant=shared")) {
      McpSyncClient alice = client(app, "alice", (String) null);
      McpSyncClient bob = client(app, "bob", (String) null);
      try {
        int before = StackServer.TRANSFERS.get();

        CallToolResult fromAlice = transfer(alice, "k1", 100);
        CallToolResult fromBob = transfer(bob, "k1", 100);
        CallToolResult bobOther = transfer(bob, "k2", 100);
        CallToolResult bobOtherArgs = transfer(bob, "k2", 900); // his own conflict
        CallToolResult aliceWithBobsKey = transfer(alice, "k2", 900);

        assertThat(fromAlice.isError()).as(text(fromAlice)).isNotEqualTo(Boolean.TRUE);
        assertThat(fromBob.isError()).as(text(fromBob)).isNotEqualTo(Boolean.TRUE);
        assertThat(replayed(fromBob)).as("bob got alice's stored result").isFalse();
        assertThat(text(fromBob)).isNotEqualTo(text(fromAlice));
        assertThat(replayed(bobOther)).isFalse();
        assertThat(errorType(bobOtherArgs)).isEqualTo(McpGateErrors.KEY_CONFLICT);
        assertThat(aliceWithBobsKey.isError())
            .as("alice is not told that bob used k2")
            .isNotEqualTo(Boolean.TRUE);
        assertThat(replayed(aliceWithBobsKey)).isFalse();
        assertThat(StackServer.TRANSFERS.get()).isEqualTo(before + 4);

        CallToolResult aliceRetry = transfer(alice, "k1", 100);
        assertThat(replayed(aliceRetry)).as("still gated within alice's tenant").isTrue();
        assertThat(text(aliceRetry)).isEqualTo(text(fromAlice));
        assertThat(StackServer.TRANSFERS.get()).isEqualTo(before + 4);

        assertThat(tenants(app, table))
            .containsExactly(
                "principal:alice", "principal:alice", "principal:bob", "principal:bob");
      } finally {
        alice.closeGracefully();
        bob.closeGracefully();
      }
    }
  }

  @ParameterizedTest(name = "{0} tools")
  @ValueSource(strings = {"SYNC", "ASYNC"})
  void onTheStatelessProtocolTwoUsersAreTwoTenantsAndARetryReplays(String type) {
    String table = table("stateless", type);
    try (ConfigurableApplicationContext app =
        server(
            type,
            table,
            "spring.ai.mcp.server.protocol=STATELESS",
            "mcpgate.tenant.constant=shared")) {
      McpSyncClient alice = client(app, "alice", (String) null);
      McpSyncClient bob = client(app, "bob", (String) null);
      try {
        int before = StackServer.TRANSFERS.get();

        CallToolResult fromAlice = transfer(alice, "k1", 100);
        CallToolResult fromBob = transfer(bob, "k1", 100);
        CallToolResult aliceRetry = transfer(alice, "k1", 100);

        assertThat(fromAlice.isError()).as(text(fromAlice)).isNotEqualTo(Boolean.TRUE);
        assertThat(fromBob.isError()).as(text(fromBob)).isNotEqualTo(Boolean.TRUE);
        assertThat(text(fromBob)).as("bob got alice's result").isNotEqualTo(text(fromAlice));
        assertThat(text(aliceRetry)).isEqualTo(text(fromAlice));
        assertThat(StackServer.TRANSFERS.get()).isEqualTo(before + 2);
        assertThat(tenants(app, table)).containsExactly("principal:alice", "principal:bob");
      } finally {
        alice.closeGracefully();
        bob.closeGracefully();
      }
    }
  }

  /** A client over the SSE protocol (GET /sse, POST to the endpoint it names), as a user. */
  public static McpSyncClient sseClient(ConfigurableApplicationContext app, String user) {
    int port = ((WebServerApplicationContext) app).getWebServer().getPort();
    McpSyncClient c =
        McpClient.sync(
                io.modelcontextprotocol.client.transport.HttpClientSseClientTransport.builder(
                        "http://127.0.0.1:" + port)
                    .sseEndpoint("/sse")
                    .httpRequestCustomizer(
                        (request, method, uri, body, ctx) ->
                            request.header(
                                "Authorization",
                                "Basic "
                                    + Base64.getEncoder()
                                        .encodeToString(
                                            (user + ":" + user + "-pw")
                                                .getBytes(StandardCharsets.UTF_8))))
                    .build())
            .build();
    c.initialize();
    return c;
  }

  @ParameterizedTest(name = "{0} tools")
  @ValueSource(strings = {"SYNC", "ASYNC"})
  void onTheSseProtocolTwoUsersAreTwoTenantsAndARetryReplays(String type) {
    String table = table("sse", type);
    try (ConfigurableApplicationContext app =
        server(
            type, table, "spring.ai.mcp.server.protocol=SSE", "mcpgate.tenant.constant=shared")) {
      McpSyncClient alice = sseClient(app, "alice");
      McpSyncClient bob = sseClient(app, "bob");
      try {
        int before = StackServer.TRANSFERS.get();

        CallToolResult fromAlice = transfer(alice, "k1", 100);
        CallToolResult fromBob = transfer(bob, "k1", 100);
        CallToolResult aliceRetry = transfer(alice, "k1", 100);

        assertThat(fromAlice.isError()).as(text(fromAlice)).isNotEqualTo(Boolean.TRUE);
        assertThat(fromBob.isError()).as(text(fromBob)).isNotEqualTo(Boolean.TRUE);
        assertThat(text(fromBob)).as("bob got alice's result").isNotEqualTo(text(fromAlice));
        assertThat(replayed(aliceRetry)).isTrue();
        assertThat(text(aliceRetry)).isEqualTo(text(fromAlice));
        assertThat(StackServer.TRANSFERS.get()).isEqualTo(before + 2);
        assertThat(tenants(app, table)).containsExactly("principal:alice", "principal:bob");
      } finally {
        alice.closeGracefully();
        bob.closeGracefully();
      }
    }
  }

  /** A client of alice's over the protocol, sending the key in the Idempotency-Key header. */
  private static McpSyncClient keyHeaderClient(
      ConfigurableApplicationContext app, String protocol, String key) {
    int port = ((WebServerApplicationContext) app).getWebServer().getPort();
    io.modelcontextprotocol.client.transport.customizer.McpSyncHttpClientRequestCustomizer headers =
        (request, method, uri, body, ctx) ->
            request
                .header(
                    "Authorization",
                    "Basic "
                        + Base64.getEncoder()
                            .encodeToString("alice:alice-pw".getBytes(StandardCharsets.UTF_8)))
                .header("Idempotency-Key", key);
    McpSyncClient c =
        McpClient.sync(
                "SSE".equals(protocol)
                    ? io.modelcontextprotocol.client.transport.HttpClientSseClientTransport.builder(
                            "http://127.0.0.1:" + port)
                        .sseEndpoint("/sse")
                        .httpRequestCustomizer(headers)
                        .build()
                    : HttpClientStreamableHttpTransport.builder("http://127.0.0.1:" + port)
                        .endpoint("/mcp")
                        .httpRequestCustomizer(headers)
                        .build())
            .build();
    c.initialize();
    return c;
  }

  @ParameterizedTest(name = "{0} tools")
  @ValueSource(strings = {"SYNC", "ASYNC"})
  void aKeyInTheIdempotencyKeyHeaderReplaysOnEveryProtocol(String type) {
    for (String protocol : List.of("STREAMABLE", "STATELESS", "SSE")) {
      String table = table("keyheader_" + protocol.toLowerCase(), type);
      try (ConfigurableApplicationContext app =
          server(
              type,
              table,
              "spring.ai.mcp.server.protocol=" + protocol,
              "mcpgate.key-sources=header")) {
        McpSyncClient first = keyHeaderClient(app, protocol, "hk-1");
        McpSyncClient again = keyHeaderClient(app, protocol, "hk-1");
        McpSyncClient other = keyHeaderClient(app, protocol, "hk-2");
        try {
          int before = StackServer.TRANSFERS.get();
          CallToolRequest call =
              new CallToolRequest("transfer_funds", Map.of("to", "acct_carol", "cents", 100));

          CallToolResult ran = first.callTool(call);
          CallToolResult retry = again.callTool(call);
          CallToolResult otherKey = other.callTool(call);

          assertThat(ran.isError()).as(protocol + ": " + text(ran)).isNotEqualTo(Boolean.TRUE);
          assertThat(replayed(retry)).as(protocol + ": " + text(retry)).isTrue();
          assertThat(text(retry)).isEqualTo(text(ran));
          assertThat(replayed(otherKey)).as(protocol + ": another key runs").isFalse();
          assertThat(StackServer.TRANSFERS.get()).as(protocol).isEqualTo(before + 2);
          assertThat(
                  app.getBean(JdbcTemplate.class)
                      .queryForList(
                          "SELECT idem_key FROM " + table + " ORDER BY idem_key", String.class))
              .containsExactly("hk-1", "hk-2");
        } finally {
          first.closeGracefully();
          again.closeGracefully();
          other.closeGracefully();
        }
      }
    }
  }

  @ParameterizedTest(name = "{0} tools")
  @ValueSource(strings = {"SYNC", "ASYNC"})
  void aRetryReplaysAndOtherArgumentsConflictWithinTheUsersTenant(String type) {
    String table = table("replay", type);
    try (ConfigurableApplicationContext app = server(type, table)) {
      McpSyncClient alice = client(app, "alice", (String) null);
      McpSyncClient bob = client(app, "bob", (String) null);
      try {
        int before = StackServer.TRANSFERS.get();

        CallToolResult first = transfer(alice, "k1", 100);
        CallToolResult retry = transfer(alice, "k1", 100);
        CallToolResult other = transfer(alice, "k1", 900);
        CallToolResult bobsOther = transfer(bob, "k1", 900); // bob's own first call

        assertThat(first.isError()).as(text(first)).isNotEqualTo(Boolean.TRUE);
        assertThat(replayed(first)).isFalse();
        assertThat(replayed(retry)).as("the retry replays").isTrue();
        assertThat(text(retry)).isEqualTo(text(first));
        assertThat(errorType(other)).isEqualTo(McpGateErrors.KEY_CONFLICT);
        assertThat(bobsOther.isError()).as(text(bobsOther)).isNotEqualTo(Boolean.TRUE);
        assertThat(replayed(bobsOther)).isFalse();
        assertThat(StackServer.TRANSFERS.get()).isEqualTo(before + 2);
        assertThat(tenants(app, table)).containsExactly("principal:alice", "principal:bob");
      } finally {
        alice.closeGracefully();
        bob.closeGracefully();
      }
    }
  }

  @ParameterizedTest(name = "{0} tools")
  @ValueSource(strings = {"SYNC", "ASYNC"})
  void eightRacingCopiesOfEachUsersCallRunOncePerUser(String type) throws Exception {
    String table = table("race", type);
    try (ConfigurableApplicationContext app = server(type, table)) {
      List<McpSyncClient> clients = new ArrayList<>();
      ExecutorService pool = Executors.newFixedThreadPool(16);
      try {
        for (int i = 0; i < 8; i++) {
          clients.add(client(app, "alice", (String) null));
          clients.add(client(app, "bob", (String) null));
        }
        int before = StackServer.TRANSFERS.get();
        CountDownLatch start = new CountDownLatch(1);
        List<Future<CallToolResult>> calls = new ArrayList<>();
        for (McpSyncClient c : clients) {
          calls.add(
              pool.submit(
                  () -> {
                    start.await();
                    return transfer(c, "k-race", StackServer.SLOW, 700);
                  }));
        }
        start.countDown();
        Map<String, java.util.Set<String>> results =
            Map.of("alice", new java.util.HashSet<>(), "bob", new java.util.HashSet<>());
        for (int i = 0; i < calls.size(); i++) {
          CallToolResult r = calls.get(i).get(60, TimeUnit.SECONDS);
          if (r.isError() == Boolean.TRUE) {
            // a racer that outwaited the in-flight wait is told to retry: not a second run
            assertThat(text(r)).contains("in progress");
            continue;
          }
          results.get(i % 2 == 0 ? "alice" : "bob").add(text(r));
        }
        assertThat(StackServer.TRANSFERS.get()).as("transfers run").isEqualTo(before + 2);
        assertThat(results.get("alice")).as("alice's racers' results").hasSize(1);
        assertThat(results.get("bob")).as("bob's racers' results").hasSize(1);
        assertThat(results.get("alice")).doesNotContainAnyElementsOf(results.get("bob"));
        assertThat(tenants(app, table)).containsExactly("principal:alice", "principal:bob");
      } finally {
        pool.shutdownNow();
        clients.forEach(McpSyncClient::closeGracefully);
      }
    }
  }

  @ParameterizedTest(name = "{0} tools")
  @ValueSource(strings = {"SYNC", "ASYNC"})
  void anAnonymousCallerIsRefusedAndNothingRuns(String type) {
    String table = table("anon", type);
    try (ConfigurableApplicationContext app = server(type, table)) {
      McpSyncClient anonymous = client(app, null, (String) null);
      try {
        int before = StackServer.TRANSFERS.get();

        CallToolResult r = transfer(anonymous, "k1", 100);

        assertThat(errorType(r)).isEqualTo(McpGateErrors.TENANT_UNKNOWN);
        assertThat(StackServer.TRANSFERS.get()).isEqualTo(before);
        assertThat(tenants(app, table)).isEmpty();
      } finally {
        anonymous.closeGracefully();
      }
    }
  }

  @ParameterizedTest(name = "{0} tools")
  @ValueSource(strings = {"SYNC", "ASYNC"})
  void anAnonymousCallerWithTheHeaderCannotReachAPrincipalsTenant(String type) {
    String table = table("header", type);
    try (ConfigurableApplicationContext app =
        server(
            type,
            table,
            "mcpgate.tenant.header=X-Tenant",
            "mcpgate.tenant.sources=principal,header")) {
      McpSyncClient alice = client(app, "alice", (String) null);
      McpSyncClient impostor = client(app, null, "alice");
      try {
        int before = StackServer.TRANSFERS.get();

        CallToolResult fromAlice = transfer(alice, "k1", 100);
        CallToolResult fromImpostor = transfer(impostor, "k1", 100);

        assertThat(fromAlice.isError()).as(text(fromAlice)).isNotEqualTo(Boolean.TRUE);
        assertThat(replayed(fromImpostor)).as("the header reached alice's result").isFalse();
        assertThat(fromImpostor.isError()).as(text(fromImpostor)).isNotEqualTo(Boolean.TRUE);
        assertThat(StackServer.TRANSFERS.get()).isEqualTo(before + 2);
        assertThat(tenants(app, table)).containsExactly("header:alice", "principal:alice");
      } finally {
        alice.closeGracefully();
        impostor.closeGracefully();
      }
    }
  }

  @ParameterizedTest(name = "{0} tools")
  @ValueSource(strings = {"SYNC", "ASYNC"})
  void aHeaderSourceWithNoHeaderRefusesTheCallEvenWithAConstantSet(String type) {
    String table = table("nohdr", type);
    try (ConfigurableApplicationContext app =
        server(
            type,
            table,
            "mcpgate.tenant.from-principal=false",
            "mcpgate.tenant.header=X-Tenant",
            "mcpgate.tenant.constant=shared")) {
      McpSyncClient bare = client(app, null, (String) null);
      McpSyncClient acme = client(app, null, "acme");
      McpSyncClient globex = client(app, null, "globex");
      try {
        int before = StackServer.TRANSFERS.get();

        CallToolResult noHeader = transfer(bare, "k1", 100);
        assertThat(errorType(noHeader))
            .as("no header: refused, not the constant")
            .isEqualTo(McpGateErrors.TENANT_UNKNOWN);
        assertThat(text(noHeader)).doesNotContain("shared");
        CallToolResult fromAcme = transfer(acme, "k1", 100);
        CallToolResult fromGlobex = transfer(globex, "k1", 100);
        assertThat(fromAcme.isError()).as(text(fromAcme)).isNotEqualTo(Boolean.TRUE);
        assertThat(replayed(fromGlobex)).as("globex got acme's result").isFalse();

        assertThat(StackServer.TRANSFERS.get()).isEqualTo(before + 2);
        assertThat(tenants(app, table)).containsExactly("header:acme", "header:globex");
      } finally {
        bare.closeGracefully();
        acme.closeGracefully();
        globex.closeGracefully();
      }
    }
  }

  @ParameterizedTest(name = "{0} tools")
  @ValueSource(strings = {"SYNC", "ASYNC"})
  void anExplicitOrderFallsBackToTheConstantAsAnotherTenant(String type) {
    String table = table("order", type);
    try (ConfigurableApplicationContext app =
        server(
            type,
            table,
            "mcpgate.tenant.header=X-Tenant",
            "mcpgate.tenant.constant=acme",
            "mcpgate.tenant.sources=header,constant")) {
      McpSyncClient bare = client(app, null, (String) null);
      McpSyncClient gateway = client(app, null, "acme");
      try {
        CallToolResult fromConstant = transfer(bare, "k1", 100);
        CallToolResult fromHeader = transfer(gateway, "k1", 100);

        assertThat(fromConstant.isError()).as(text(fromConstant)).isNotEqualTo(Boolean.TRUE);
        assertThat(replayed(fromHeader)).as("header:acme is not constant:acme").isFalse();
        assertThat(tenants(app, table)).containsExactly("constant:acme", "header:acme");
      } finally {
        bare.closeGracefully();
        gateway.closeGracefully();
      }
    }
  }

  @ParameterizedTest(name = "{0} tools")
  @ValueSource(strings = {"SYNC", "ASYNC"})
  void aRepeatedTenantHeaderIsRefusedNeverReadNorFallenBackFrom(String type) {
    String table = table("twice", type);
    try (ConfigurableApplicationContext app =
        server(
            type,
            table,
            "mcpgate.tenant.header=X-Tenant",
            "mcpgate.tenant.constant=acme",
            "mcpgate.tenant.sources=header,constant")) {
      McpSyncClient gateway = client(app, null, List.of("acme"));
      McpSyncClient twice = client(app, null, List.of("acme", "evil"));
      McpSyncClient twiceSame = client(app, null, List.of("acme", "acme"));
      try {
        int before = StackServer.TRANSFERS.get();

        CallToolResult first = transfer(gateway, "k1", 100);
        CallToolResult fromTwice = transfer(twice, "k1", 100);
        CallToolResult fromTwiceSame = transfer(twiceSame, "k2", 100);

        assertThat(first.isError()).as(text(first)).isNotEqualTo(Boolean.TRUE);
        assertThat(errorType(fromTwice))
            .as("two values: refused, neither read nor the constant")
            .isEqualTo(McpGateErrors.TENANT_UNKNOWN);
        assertThat(errorType(fromTwiceSame))
            .as("the same value twice is refused too")
            .isEqualTo(McpGateErrors.TENANT_UNKNOWN);
        assertThat(StackServer.TRANSFERS.get()).isEqualTo(before + 1);
        assertThat(tenants(app, table)).containsExactly("header:acme");
      } finally {
        gateway.closeGracefully();
        twice.closeGracefully();
        twiceSame.closeGracefully();
      }
    }
  }
}
