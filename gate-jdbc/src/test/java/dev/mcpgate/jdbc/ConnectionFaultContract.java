package dev.mcpgate.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.mcpgate.core.ClaimId;
import dev.mcpgate.core.FailureReason;
import dev.mcpgate.core.GatePolicy;
import dev.mcpgate.core.GateResult;
import dev.mcpgate.core.IdempotencyGate;
import dev.mcpgate.core.ResultMapper;
import dev.mcpgate.core.ToolCall;
import dev.mcpgate.core.spi.ClaimRecord;
import dev.mcpgate.core.spi.ClaimState;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Kills the server side of the store's connections while many threads claim and complete, and
 * checks that no action ran twice and that every "stored" report is true.
 */
abstract class ConnectionFaultContract {
  static final String APP = "mcpgate-fault";

  abstract TestDatabases.Target target();

  /** Adds to the pool's config whatever lets {@link #killBusyConnections} find its connections. */
  abstract void markConnections(HikariConfig config);

  /**
   * @return how many server connections of the fault pool were killed
   */
  abstract int killBusyConnections(Connection admin) throws SQLException;

  private static HikariDataSource adminPool(TestDatabases.Target target) {
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(target.url());
    if (target.user() != null) {
      config.setUsername(target.user());
      config.setPassword(target.password());
    }
    config.setMaximumPoolSize(2);
    config.setPoolName(APP + "-admin");
    return new HikariDataSource(config);
  }

  @Test
  void droppedConnectionsNeverRunAnActionTwiceNorClaimAStoreThatDidNotHappen() throws Exception {
    TestDatabases.Target target = target();
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(target.url());
    if (target.user() != null) {
      config.setUsername(target.user());
      config.setPassword(target.password());
    }
    config.setMaximumPoolSize(8);
    config.setPoolName(APP);
    markConnections(config);
    String tenant = "fault-" + UUID.randomUUID();
    int keys = 150;
    ConcurrentHashMap<String, AtomicInteger> runs = new ConcurrentHashMap<>();
    ConcurrentHashMap<String, String> reportedStored = new ConcurrentHashMap<>();
    AtomicInteger storeFailures = new AtomicInteger();
    AtomicInteger kills = new AtomicInteger();
    AtomicBoolean done = new AtomicBoolean();

    try (HikariDataSource pool = new HikariDataSource(config);
        HikariDataSource admin = adminPool(target)) {
      JdbcIdempotencyStore store =
          JdbcIdempotencyStore.builder(pool)
              .tableName(JdbcStoreContract.TABLE)
              .createSchemaIfMissing(true)
              .build();
      IdempotencyGate gate =
          IdempotencyGate.builder(store)
              .policy(
                  GatePolicy.builder()
                      .lease(Duration.ofMinutes(10))
                      .inFlightWait(Duration.ZERO)
                      .build())
              .build();
      ExecutorService workers = Executors.newFixedThreadPool(9);
      try {
        Future<?> killer =
            workers.submit(
                () -> {
                  while (!done.get()) {
                    try (Connection c = admin.getConnection()) {
                      kills.addAndGet(killBusyConnections(c));
                    }
                    Thread.sleep(7);
                  }
                  return null;
                });
        List<Future<?>> futures = new ArrayList<>();
        for (int t = 0; t < 8; t++) {
          int offset = t;
          futures.add(
              workers.submit(
                  () -> {
                    for (int i = 0; i < keys; i++) {
                      String key = "key-" + ((i + offset * 17) % keys);
                      ToolCall call = ToolCall.of(tenant, "refund_order", key, Map.of("key", key));
                      for (int attempt = 0; attempt < 20; attempt++) {
                        GateResult<String> r =
                            gate.execute(
                                call,
                                ResultMapper.utf8(),
                                ctx ->
                                    key
                                        + "#"
                                        + runs.computeIfAbsent(key, k -> new AtomicInteger())
                                            .incrementAndGet());
                        if (r instanceof GateResult.Failed<String> f) {
                          if (f.reason() != FailureReason.STORE_UNAVAILABLE
                              && f.reason() != FailureReason.ROLLED_BACK) {
                            throw new AssertionError(f.message(), f.cause());
                          }
                          storeFailures.incrementAndGet();
                          continue;
                        }
                        if (r instanceof GateResult.Executed<String> e) {
                          if (e.completion() == GateResult.Completion.STORED) {
                            reportedStored.put(key, e.value());
                          } else {
                            storeFailures.incrementAndGet();
                          }
                        }
                        break;
                      }
                    }
                    return null;
                  }));
        }
        for (Future<?> f : futures) {
          f.get(5, TimeUnit.MINUTES);
        }
        done.set(true);
        killer.get(1, TimeUnit.MINUTES);
      } finally {
        done.set(true);
        workers.shutdownNow();
      }

      assertThat(kills.get()).as("connections killed").isPositive();
      assertThat(storeFailures.get()).as("store failures seen by callers").isPositive();
      runs.forEach((key, n) -> assertThat(n.get()).as("executions of %s", key).isEqualTo(1));
      JdbcIdempotencyStore reader =
          JdbcIdempotencyStore.builder(admin).tableName(JdbcStoreContract.TABLE).build();
      reportedStored.forEach(
          (key, value) -> {
            ClaimRecord row = reader.find(new ClaimId(tenant, "refund_order", key)).orElseThrow();
            assertThat(row.state()).as("state of %s", key).isEqualTo(ClaimState.COMPLETED);
            assertThat(new String(row.result().body(), StandardCharsets.UTF_8)).isEqualTo(value);
          });
    }
  }
}
