package dev.mcpgate.spring.review;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.mcp.Idempotent;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.ai.mcp.annotation.McpTool;
import org.springframework.ai.mcp.annotation.McpToolParam;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.dao.CannotAcquireLockException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.resilience.annotation.EnableResilientMethods;
import org.springframework.resilience.annotation.Retryable;
import org.springframework.transaction.annotation.Transactional;

/**
 * Review O (of 1e3deb17). The common "retry a transactional method on a lock failure" setup: Spring
 * Framework 7's {@code @Retryable} (its advice outside {@code @Transactional}'s, as Spring places
 * it) on a gated {@code @Transactional} tool. ToolExceptions' {@code noting} is outermost, so one
 * {@code ending} array serves every attempt; {@code Ending.watch} registers only while it is
 * WATCHING, i.e. for the first attempt's transaction. That one rolled back (the lock failure); the
 * second attempt's transaction committed and the method returned. The call is answered "its
 * transaction was rolled back, nothing it wrote was kept" (untrue), the key is freed, and the retry
 * charges again. Needs PostgreSQL at 127.0.0.1:5432 (database test, user postgres).
 */
class RetriedTransactionalToolReviewTest {
  static final String TABLE = "mg_retried_tx_" + Long.toHexString(System.nanoTime());
  private static final String URL = "jdbc:postgresql://127.0.0.1:5432/test?user=postgres";
  static final Map<String, AtomicInteger> ATTEMPTS = new ConcurrentHashMap<>();

  public static class Tools {
    private final JdbcTemplate jdbc;

    public Tools(JdbcTemplate jdbc) {
      this.jdbc = jdbc;
    }

    @McpTool(name = "charge_retried", description = "Charge an order")
    @Idempotent
    @Retryable(includes = CannotAcquireLockException.class, maxRetries = 2, delay = 0)
    @Transactional
    public String charge(@McpToolParam(description = "the order") String orderId) {
      jdbc.update("INSERT INTO " + TABLE + " VALUES (?)", orderId);
      int attempt = ATTEMPTS.computeIfAbsent(orderId, k -> new AtomicInteger()).incrementAndGet();
      if (attempt % 2 == 1) { // each call's first attempt meets a lock timeout, rolled back
        throw new CannotAcquireLockException("lock timeout on the account row");
      }
      return "charged " + orderId;
    }
  }

  @EnableAutoConfiguration
  @EnableResilientMethods
  @Import(ReviewApps.OpenSecurity.class)
  public static class Server {
    @Bean
    Tools tools(JdbcTemplate jdbc) {
      return new Tools(jdbc);
    }
  }

  private static ConfigurableApplicationContext app;

  @BeforeAll
  static void start() throws Exception {
    try (Connection c = DriverManager.getConnection(URL);
        Statement st = c.createStatement()) {
      st.execute("CREATE TABLE " + TABLE + " (order_id text NOT NULL)");
    }
    org.apache.catalina.webresources.TomcatURLStreamHandlerFactory.disable();
    app =
        new org.springframework.boot.builder.SpringApplicationBuilder(Server.class)
            .properties(
                "server.port=0",
                "spring.main.banner-mode=off",
                "spring.ai.mcp.server.protocol=STREAMABLE",
                "spring.ai.mcp.server.type=SYNC",
                "mcpgate.store=memory",
                "mcpgate.tenant.constant=review",
                "mcpgate.tenant.sources=constant",
                "spring.datasource.url=jdbc:postgresql://127.0.0.1:5432/test",
                "spring.datasource.username=postgres")
            .run();
  }

  @AfterAll
  static void stop() {
    if (app != null) {
      app.close();
    }
  }

  @Test
  void aChargeThatCommittedOnItsSecondAttemptIsNotMadeAgain() throws Exception {
    String order = UUID.randomUUID().toString();
    List<Object> answers = new ArrayList<>();
    McpSyncClient client = ReviewApps.client(app);
    try {
      CallToolRequest call =
          CallToolRequest.builder()
              .name("charge_retried")
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
    assertThat(rows(order)).as("charge rows; answers %s", answers).isEqualTo(1);
  }

  private static int rows(String order) throws Exception {
    try (Connection c = DriverManager.getConnection(URL);
        PreparedStatement st =
            c.prepareStatement("SELECT count(*) FROM " + TABLE + " WHERE order_id = ?")) {
      st.setString(1, order);
      try (ResultSet rs = st.executeQuery()) {
        rs.next();
        return rs.getInt(1);
      }
    }
  }
}
