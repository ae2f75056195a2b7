package dev.mcpgate.spring.review;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.core.GatePolicy;
import dev.mcpgate.core.IdempotencyGate;
import dev.mcpgate.core.memory.InMemoryIdempotencyStore;
import dev.mcpgate.mcp.Idempotent;
import dev.mcpgate.mcp.McpGate;
import dev.mcpgate.mcp.TenantResolver;
import java.util.List;
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
  static final String TABLE = ReviewApps.chargeTable("mg_committed_own_policy");

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
    String order = UUID.randomUUID().toString();
    try (ConfigurableApplicationContext app = ReviewApps.postgresServer(Server.class, 5432)) {
      List<Object> answers = ReviewApps.chargeTwice(app, "charge_checked", order);
      assertThat(ReviewApps.charges(TABLE, order))
          .as("charge rows; answers %s", answers)
          .isEqualTo(1);
    }
  }
}
