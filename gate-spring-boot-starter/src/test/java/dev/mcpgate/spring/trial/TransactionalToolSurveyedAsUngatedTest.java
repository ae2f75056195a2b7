package dev.mcpgate.spring.trial;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.core.ClaimId;
import dev.mcpgate.core.LeaseToken;
import dev.mcpgate.core.spi.ClaimState;
import dev.mcpgate.core.spi.IdempotencyStore;
import dev.mcpgate.core.spi.StoredResult;
import dev.mcpgate.core.spi.TransactionScope;
import dev.mcpgate.mcp.McpGate;
import dev.mcpgate.mcp.ToolPolicy;
import dev.mcpgate.spring.StarterFrictionTest;
import io.modelcontextprotocol.server.McpServerFeatures.SyncToolSpecification;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;

/**
 * docs/adapters.md: the Spring Boot starter has the transactional mode ("yes") and reports the
 * ungated write tools at startup ({@code mcpgate.require-gated-writes} fails it).
 *
 * <p>The starter has no {@code @Idempotent} attribute for the transactional mode, so a tool in that
 * mode is one the application gates itself with the starter's {@code McpGate} bean ({@code
 * gateTransactional}) and hands to Spring AI as a specification bean. Expected: the survey counts
 * it gated, and {@code mcpgate.require-gated-writes=true} starts. What the test reports is what the
 * survey does with it.
 */
class TransactionalToolSurveyedAsUngatedTest {

  /** A tool gated by the application itself in the transactional mode. */
  public static class TransactionalTools {
    @Bean
    List<SyncToolSpecification> transactionalTools(McpGate mcpGate, IdempotencyStore store) {
      McpSchema.Tool tool =
          McpSchema.Tool.builder(
                  "book_seat",
                  Map.of("type", "object", "properties", Map.of("price", Map.of("type", "number"))))
              .description("Book a seat.")
              .build();
      return List.of(
          mcpGate.gateTransactional(
              tool,
              ToolPolicy.defaults(),
              new UnitOfWork(store),
              (exchange, request, scope, writes) ->
                  CallToolResult.builder().addTextContent("booked").build()));
    }
  }

  @Test
  void aToolGatedInTheTransactionalModePassesRequireGatedWrites() {
    try (ConfigurableApplicationContext app =
        TrialServer.server(TransactionalTools.class, "mcpgate.require-gated-writes=true").run()) {
      McpSchema.Tool listed =
          TrialServer.client(app, Map.of()).listTools().tools().stream()
              .filter(t -> t.name().equals("book_seat"))
              .findFirst()
              .orElseThrow();
      assertThat(listed.annotations().idempotentHint()).as("it is gated").isTrue();
    }
  }

  /**
   * The startup warns of gated tools that take decimals while the server reads them as double (a
   * call with one is refused): a tool the application gated itself is one of them.
   */
  @Test
  void anApplicationGatedToolThatTakesDecimalsIsNamedInTheDecimalsWarning() {
    StringBuilder log = new StringBuilder();
    try (ConfigurableApplicationContext app =
        StarterFrictionTest.logged(log, () -> TrialServer.server(TransactionalTools.class).run())) {
      assertThat(log).contains("take decimal numbers").contains("book_seat");
    }
  }

  /** Token-checked writes applied at commit, dropped at rollback, over the in-memory store. */
  static final class UnitOfWork implements TransactionScope<List<Runnable>> {
    private final IdempotencyStore store;

    UnitOfWork(IdempotencyStore store) {
      this.store = store;
    }

    @Override
    public List<Runnable> begin() {
      return new ArrayList<>();
    }

    private boolean holds(ClaimId id, LeaseToken token) {
      return store
          .find(id)
          .filter(r -> r.token().equals(token) && r.state() != ClaimState.COMPLETED)
          .isPresent();
    }

    @Override
    public boolean complete(
        List<Runnable> writes,
        ClaimId id,
        LeaseToken token,
        StoredResult result,
        Duration retention) {
      boolean held = holds(id, token);
      if (held) {
        writes.add(() -> store.complete(id, token, result, retention));
      }
      return held;
    }

    @Override
    public boolean release(List<Runnable> writes, ClaimId id, LeaseToken token) {
      boolean held = holds(id, token);
      if (held) {
        writes.add(() -> store.release(id, token));
      }
      return held;
    }

    @Override
    public void commit(List<Runnable> writes) {
      writes.forEach(Runnable::run);
      writes.clear();
    }

    @Override
    public void rollback(List<Runnable> writes) {
      writes.clear();
    }

    @Override
    public void close(List<Runnable> writes) {}
  }
}
