package dev.mcpgate.spring.review;

import static org.assertj.core.api.Assertions.assertThat;

import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.web.SecurityFilterChain;

/** The review tests' servers: Streamable HTTP on a free port, the memory store, one tenant. */
final class ReviewApps {
  private ReviewApps() {}

  /**
   * Open to all (Spring Security is on the tests' class path): the servers import it. Not a
   * {@code @Configuration}, which the component scan of other test servers in this package's
   * parents would pick up (a second bean {@code open}); {@code @Import} reads its beans all the
   * same.
   */
  static class OpenSecurity {
    @Bean
    SecurityFilterChain open(HttpSecurity http) throws Exception {
      return http.csrf(c -> c.disable())
          .authorizeHttpRequests(a -> a.anyRequest().permitAll())
          .build();
    }
  }

  /**
   * Sends one call to {@code tool} twice with the key {@code key} in {@code _meta}, as a client
   * that retries does.
   *
   * @return the first answer and the retry's
   */
  static List<CallToolResult> sameCallTwice(
      ConfigurableApplicationContext app, String tool, Map<String, Object> arguments, String key) {
    McpSyncClient client = client(app);
    try {
      CallToolRequest call =
          CallToolRequest.builder()
              .name(tool)
              .arguments(arguments)
              .meta(Map.of("dev.mcpgate/idempotency-key", key))
              .build();
      CallToolResult first = client.callTool(call);
      return List.of(first, client.callTool(call));
    } finally {
      client.closeGracefully();
    }
  }

  /**
   * Calls {@code tool} twice with {@code {"orderId": order}} under the key {@code "k-" + order}.
   *
   * @return each answer: its result, or the exception the client threw for it
   */
  static List<Object> chargeTwice(ConfigurableApplicationContext app, String tool, String order) {
    List<Object> answers = new ArrayList<>();
    McpSyncClient client = client(app);
    try {
      CallToolRequest call =
          CallToolRequest.builder()
              .name(tool)
              .arguments(Map.of("orderId", order))
              .meta(Map.of("dev.mcpgate/idempotency-key", "k-" + order))
              .build();
      for (int i = 0; i < 2; i++) {
        try {
          answers.add(client.callTool(call));
        } catch (RuntimeException e) {
          answers.add(e);
        }
      }
    } finally {
      client.closeGracefully();
    }
    return answers;
  }

  /** A review server, started before a test class's tests and closed after them. */
  static final class Running implements BeforeAllCallback, AfterAllCallback {
    private final Supplier<ConfigurableApplicationContext> start;
    private ConfigurableApplicationContext app;

    Running(Supplier<ConfigurableApplicationContext> start) {
      this.start = start;
    }

    ConfigurableApplicationContext app() {
      return app;
    }

    @Override
    public void beforeAll(ExtensionContext context) {
      app = start.get();
    }

    @Override
    public void afterAll(ExtensionContext context) {
      if (app != null) {
        app.close();
      }
    }
  }

  /** Asserts that no answer is a result that is not an error (replayed or not). */
  static void noAnswerIsASuccess(List<Object> answers) {
    assertThat(answers)
        .as("no answer may be a success (replayed or not)")
        .noneSatisfy(
            a ->
                assertThat(a)
                    .isInstanceOfSatisfying(
                        CallToolResult.class,
                        r -> assertThat(r.isError()).isNotEqualTo(Boolean.TRUE)));
  }

  /** Asserts that every answer is a result whose text does not contain {@code text}. */
  static void noAnswerSays(List<Object> answers, String text) {
    assertThat(answers)
        .as("no answer may say what did not happen")
        .allSatisfy(
            a ->
                assertThat(a)
                    .isInstanceOfSatisfying(
                        CallToolResult.class,
                        r -> assertThat(String.valueOf(r.content())).doesNotContain(text)));
  }

  /**
   * Asserts that both answers are results that are not errors and say {@code text}, the second a
   * replay.
   */
  static void answeredAndReplayed(List<Object> answers, String text) {
    assertThat(answers)
        .hasSize(2)
        .allSatisfy(
            a ->
                assertThat(a)
                    .isInstanceOfSatisfying(
                        CallToolResult.class,
                        r -> {
                          assertThat(r.isError()).as("%s", r).isNotEqualTo(Boolean.TRUE);
                          assertThat(String.valueOf(r.content())).contains(text);
                        }));
    assertThat(((CallToolResult) answers.get(1)).meta())
        .containsEntry("dev.mcpgate/replayed", true);
  }

  /** Starts {@code server} with the review settings and {@code more} properties. */
  static ConfigurableApplicationContext memoryServer(Class<?> server, String... more) {
    List<String> properties =
        new ArrayList<>(
            List.of(
                "spring.autoconfigure.exclude="
                    + "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration"));
    properties.addAll(List.of(more));
    return start(server, properties);
  }

  /**
   * Like {@link #memoryServer}, the application's data source on PostgreSQL at 127.0.0.1:{@code
   * port} (database test, user postgres); the gate's store stays the memory store.
   */
  static ConfigurableApplicationContext postgresServer(Class<?> server, int port, String... more) {
    List<String> properties =
        new ArrayList<>(
            List.of(
                "spring.datasource.url=jdbc:postgresql://127.0.0.1:" + port + "/test",
                "spring.datasource.username=postgres"));
    properties.addAll(List.of(more));
    return start(server, properties);
  }

  private static ConfigurableApplicationContext start(Class<?> server, List<String> more) {
    org.apache.catalina.webresources.TomcatURLStreamHandlerFactory.disable();
    List<String> properties =
        new ArrayList<>(
            List.of(
                "server.port=0",
                "spring.main.banner-mode=off",
                "spring.ai.mcp.server.protocol=STREAMABLE",
                "mcpgate.store=memory",
                "mcpgate.tenant.constant=review",
                "mcpgate.tenant.sources=constant"));
    properties.addAll(more);
    return new SpringApplicationBuilder(server).properties(properties.toArray(String[]::new)).run();
  }

  /**
   * @return the name of a new charge table (one row a charge) in PostgreSQL at 127.0.0.1:5432
   */
  static String chargeTable(String prefix) {
    String table = prefix + "_" + Long.toHexString(System.nanoTime());
    try (Connection c = DriverManager.getConnection(POSTGRES);
        Statement st = c.createStatement()) {
      st.execute("CREATE TABLE " + table + " (order_id text NOT NULL)");
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
    return table;
  }

  /**
   * @return how many charges of {@code order} {@code table} holds
   */
  static int charges(String table, String order) throws SQLException {
    try (Connection c = DriverManager.getConnection(POSTGRES);
        PreparedStatement st =
            c.prepareStatement("SELECT count(*) FROM " + table + " WHERE order_id = ?")) {
      st.setString(1, order);
      try (ResultSet rs = st.executeQuery()) {
        rs.next();
        return rs.getInt(1);
      }
    }
  }

  private static final String POSTGRES = "jdbc:postgresql://127.0.0.1:5432/test?user=postgres";

  /** An initialized client of {@code app}'s MCP endpoint; close it gracefully. */
  static McpSyncClient client(ConfigurableApplicationContext app) {
    int port = ((WebServerApplicationContext) app).getWebServer().getPort();
    McpSyncClient client =
        McpClient.sync(
                HttpClientStreamableHttpTransport.builder("http://127.0.0.1:" + port)
                    .endpoint("/mcp")
                    .build())
            .build();
    client.initialize();
    return client;
  }
}
