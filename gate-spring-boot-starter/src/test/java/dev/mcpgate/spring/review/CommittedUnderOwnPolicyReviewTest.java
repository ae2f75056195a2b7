package dev.mcpgate.spring.review;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.core.GatePolicy;
import dev.mcpgate.core.IdempotencyGate;
import dev.mcpgate.core.memory.InMemoryIdempotencyStore;
import dev.mcpgate.mcp.Idempotent;
import dev.mcpgate.mcp.McpGate;
import dev.mcpgate.mcp.TenantResolver;
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
import org.junit.jupiter.api.Test;
import org.springframework.ai.mcp.annotation.McpTool;
import org.springframework.ai.mcp.annotation.McpToolParam;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.annotation.Transactional;

/**
 * Review O (of 1e3deb17 with 2ae98f1c). The fence for "threw after its transaction committed" is an
 * {@code OutcomeUnknownException} ({@code ToolExceptions.Committed}) that {@code checked} throws
 * only when the McpGate's policy says it is unknown ({@code unknown(t)}), and the engine asks that
 * policy again. A policy whose {@code outcomeUnknownWhen} names the application's own timeout (the
 * setup of OwnMcpGatePolicyTest) replaces the default {@code t -> t instanceof
 * OutcomeUnknownException}, and OutcomeUnknownException is not among UnknownOutcomes'
 * ALWAYS_UNKNOWN: the gate's own "committed" signal counts as a plain failure, the key is released,
 * the retry charges again. Needs PostgreSQL at 127.0.0.1:5432 (database test, user postgres).
 */
class CommittedUnderOwnPolicyReviewTest {
  static final String TABLE = "mg_committed_own_policy_" + Long.toHexString(System.nanoTime());
  private static final String URL = "jdbc:postgresql://127.0.0.1:5432/test?user=postgres";

  /** What the payment provider's client throws when its answer does not come in time. */
  static final class ProviderTimeout extends RuntimeException {
    private static final long serialVersionUID = 1L;
  }

  /** A checked failure after the charge: the receipt could not be sent. */
  public static class ReceiptFailed extends Exception {
    private static final long serialVersionUID = 1L;

    public ReceiptFailed(String message) {
      super(message);
    }
  }

  public static class Tools {
    private final JdbcTemplate jdbc;

    public Tools(JdbcTemplate jdbc) {
      this.jdbc = jdbc;
    }

    @McpTool(name = "charge_checked", description = "Charge an order")
    @Idempotent
    @Transactional
    public String chargeChecked(@McpToolParam(description = "the order") String orderId)
        throws ReceiptFailed {
      jdbc.update("INSERT INTO " + TABLE + " VALUES (?)", orderId);
      throw new ReceiptFailed("the receipt could not be sent for " + orderId); // Spring commits
    }
  }

  @EnableAutoConfiguration
  @Import(ReviewApps.OpenSecurity.class)
  public static class Server {
    @Bean
    McpGate mcpGate(TenantResolver tenants) {
      IdempotencyGate gate =
          IdempotencyGate.builder(InMemoryIdempotencyStore.create())
              .policy(
                  GatePolicy.defaults().toBuilder()
                      .outcomeUnknownWhen(t -> t instanceof ProviderTimeout)
                      .build())
              .build();
      return McpGate.builder(gate).tenantResolver(tenants).build();
    }

    @Bean
    Tools tools(JdbcTemplate jdbc) {
      return new Tools(jdbc);
    }
  }

  @Test
  void aCommittedChargeIsNotMadeAgainUnderAnOwnPolicy() throws Exception {
    try (Connection c = DriverManager.getConnection(URL);
        Statement st = c.createStatement()) {
      st.execute("CREATE TABLE " + TABLE + " (order_id text NOT NULL)");
    }
    String order = UUID.randomUUID().toString();
    try (ConfigurableApplicationContext app =
        ReviewApps.memoryServer(
            Server.class,
            "spring.ai.mcp.server.type=SYNC",
            "spring.autoconfigure.exclude=",
            "spring.datasource.url=jdbc:postgresql://127.0.0.1:5432/test",
            "spring.datasource.username=postgres")) {
      List<Object> answers = new ArrayList<>();
      McpSyncClient client = ReviewApps.client(app);
      try {
        CallToolRequest call =
            CallToolRequest.builder()
                .name("charge_checked")
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
