package dev.mcpgate.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.mcpgate.core.GateResult;
import dev.mcpgate.core.IdempotencyGate;
import dev.mcpgate.core.ResultMapper;
import dev.mcpgate.core.ToolCall;
import dev.mcpgate.core.spi.ClaimState;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * An action that succeeds on a thread whose interrupt flag is set (a transport that cancelled just
 * as the handler returned): its result is stored all the same, though a pool refuses an interrupted
 * thread a connection, and the flag is kept for the caller.
 */
class InterruptedSuccessTest {
  @Test
  void aSuccessOnAnInterruptedThreadIsStoredNotFenced() throws Exception {
    com.zaxxer.hikari.HikariConfig config = new com.zaxxer.hikari.HikariConfig();
    config.setJdbcUrl(TestDatabases.h2().url());
    config.setUsername("sa");
    config.setMaximumPoolSize(2); // one for the store's renewals, one the action holds
    try (HikariDataSource ds = new HikariDataSource(config);
        JdbcIdempotencyStore store =
            JdbcIdempotencyStore.builder(ds)
                .tableName("interrupt_claims")
                .createSchemaIfMissing(true)
                .build();
        IdempotencyGate gate = IdempotencyGate.builder(store).build()) {
      ToolCall call =
          ToolCall.of("t-" + UUID.randomUUID(), "refund_order", "k", Map.of("order", 1));

      store.verify(); // takes the renewal connection
      GateResult<String> r =
          gate.execute(
              call,
              ResultMapper.utf8(),
              ctx -> {
                // the action's own connection, given back a moment after it returns: the completion
                // must wait for the pool, which an interrupted thread cannot
                java.sql.Connection held = ds.getConnection();
                new Thread(
                        () -> {
                          try {
                            Thread.sleep(300);
                            held.close();
                          } catch (Exception e) {
                            throw new IllegalStateException(e);
                          }
                        })
                    .start();
                Thread.currentThread().interrupt();
                return "refunded";
              });

      assertThat(Thread.interrupted()).as("the flag is kept for the caller").isTrue();
      assertThat(r)
          .isInstanceOfSatisfying(
              GateResult.Executed.class,
              e -> assertThat(e.completion()).isEqualTo(GateResult.Completion.STORED));
      assertThat(store.find(call.id()).orElseThrow().state()).isEqualTo(ClaimState.COMPLETED);
    }
  }
}
