package dev.mcpgate.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariDataSource;
import dev.mcpgate.core.ClaimId;
import dev.mcpgate.core.FailureReason;
import dev.mcpgate.core.GatePolicy;
import dev.mcpgate.core.GateResult;
import dev.mcpgate.core.IdempotencyGate;
import dev.mcpgate.core.LeaseToken;
import dev.mcpgate.core.ResultMapper;
import dev.mcpgate.core.ResultTooLargeException;
import dev.mcpgate.core.ToolCall;
import dev.mcpgate.core.spi.ClaimAttempt;
import dev.mcpgate.core.spi.ClaimRequest;
import dev.mcpgate.core.spi.ClaimState;
import dev.mcpgate.core.spi.StoredResult;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A result larger than the server's {@code max_allowed_packet} (16 MB by default on MariaDB 10.11;
 * global, so read here, not lowered) with the gate's {@code maxResultBytes} set above it. What the
 * caller is told must be true: the action ran, its result is not stored, and a retry with the same
 * key is refused, never run again; and it must name the cause.
 */
class MariaDbMaxAllowedPacketEdgeTest {
  private static final Duration LONG = Duration.ofMinutes(10);

  private final String table =
      "edge_packet_" + UUID.randomUUID().toString().replace("-", "").substring(0, 10);
  private HikariDataSource pool;
  private JdbcIdempotencyStore store;
  long packet;

  /** The server and driver: MariaDB's driver here. */
  TestDatabases.Target target() {
    return TestDatabases.mariadb();
  }

  /** The largest result the driver sends in one packet: MariaDB's sends plain bytes as they are. */
  long largestThatFits() {
    return packet;
  }

  @BeforeEach
  void openStore() throws Exception {
    pool = TestDatabases.pool(target(), "edge-packet", 4);
    store = JdbcIdempotencyStore.builder(pool).tableName(table).createSchemaIfMissing(true).build();
    try (Connection c = pool.getConnection();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT @@max_allowed_packet")) {
      rs.next();
      packet = rs.getLong(1);
    }
  }

  @AfterEach
  void dropTable() throws Exception {
    store.close();
    try (Connection c = pool.getConnection();
        Statement s = c.createStatement()) {
      s.execute("DROP TABLE IF EXISTS " + table);
    }
  }

  /** Bytes that no codec shrinks much, {@code extra} more than the server's packet. */
  private String justOverThePacket(int extra) {
    StringBuilder b = new StringBuilder((int) packet + extra);
    java.util.Random random = new java.util.Random(7);
    while (b.length() < packet + extra) {
      b.append((char) ('!' + random.nextInt(90)));
    }
    return b.toString();
  }

  @Test
  void theStoreRefusesAResultOverThePacketAsTooLargeNamingTheCause() {
    ClaimId id = new ClaimId("acme", "export_report", "store-" + table);
    LeaseToken token = LeaseToken.random();
    assertThat(store.claim(new ClaimRequest(id, "h", token, LONG, LONG)))
        .isInstanceOf(ClaimAttempt.Acquired.class);
    byte[] big = justOverThePacket(1024).getBytes(java.nio.charset.StandardCharsets.US_ASCII);

    assertThatThrownBy(
            () -> store.complete(id, token, new StoredResult(StoredResult.Kind.VALUE, big), LONG))
        .isInstanceOf(ResultTooLargeException.class)
        .hasMessageContaining("max_allowed_packet")
        .hasMessageContaining(Long.toString(packet))
        .hasMessageContaining(Integer.toString(big.length));
    assertThat(store.find(id).orElseThrow().state())
        .as("the key stays claimed")
        .isEqualTo(ClaimState.IN_PROGRESS);
    assertThat(store.complete(id, token, StoredResult.notStored(), LONG))
        .as("the store still takes the not-stored marker on the same token")
        .isTrue();
  }

  /** The three paths: plain, the action's transaction, single-commit mode. */
  enum Path {
    PLAIN,
    TRANSACTION,
    SINGLE_COMMIT
  }

  @ParameterizedTest
  @EnumSource(Path.class)
  void theCallerIsToldTheActionRanTheResultIsNotStoredAndARetryIsRefused(Path path) {
    IdempotencyGate gate =
        IdempotencyGate.builder(store)
            .policy(
                GatePolicy.builder()
                    .maxResultBytes((int) Math.min(Integer.MAX_VALUE, packet * 2))
                    .inFlightWait(Duration.ZERO)
                    .build())
            .build();
    ToolCall call =
        ToolCall.of("acme", "export_report", path + "-" + table, Map.of("report", "all"));
    String big = justOverThePacket(1024);
    AtomicInteger runs = new AtomicInteger();

    GateResult<String> first = run(gate, path, call, big, runs);

    assertThat(first).isInstanceOf(GateResult.Failed.class);
    GateResult.Failed<String> failed = (GateResult.Failed<String>) first;
    assertThat(failed.reason()).as(failed.message()).isEqualTo(FailureReason.RESULT_TOO_LARGE);
    assertThat(failed.effect()).isEqualTo(GateResult.Effect.YES);
    assertThat(failed.retrySafe()).isFalse();
    assertThat(failed.message()).contains("max_allowed_packet").contains(Long.toString(packet));

    GateResult<String> retry = run(gate, path, call, "ran again", runs);
    assertThat(runs.get()).as("runs of the action").isEqualTo(1);
    assertThat(retry).as("%s", retry).isNotInstanceOf(GateResult.Executed.class);
  }

  private GateResult<String> run(
      IdempotencyGate gate, Path path, ToolCall call, String result, AtomicInteger runs) {
    return switch (path) {
      case PLAIN ->
          gate.execute(
              call,
              ResultMapper.utf8(),
              ctx -> {
                runs.incrementAndGet();
                return result;
              });
      case TRANSACTION ->
          gate.execute(
              call,
              ResultMapper.utf8(),
              store.transactions(),
              (c, ctx) -> {
                runs.incrementAndGet();
                return result;
              });
      case SINGLE_COMMIT ->
          gate.executeSingleCommit(
              call,
              ResultMapper.utf8(),
              store.singleCommit(),
              (c, ctx) -> {
                runs.incrementAndGet();
                return result;
              });
    };
  }

  /**
   * A result of quotes under the packet, whose escaped form in the statement is over it: sent, it
   * would be dropped with the connection as a socket error.
   */
  @Test
  void aResultCountsAsTheDriverSendsItEscaped() {
    ClaimId id = new ClaimId("acme", "export_report", "quotes-" + table);
    LeaseToken token = LeaseToken.random();
    assertThat(store.claim(new ClaimRequest(id, "h", token, LONG, LONG)))
        .isInstanceOf(ClaimAttempt.Acquired.class);
    byte[] quotes = new byte[(int) (packet / 2 + 64 * 1024)];
    java.util.Arrays.fill(quotes, (byte) '\'');

    assertThatThrownBy(
            () ->
                store.complete(id, token, new StoredResult(StoredResult.Kind.VALUE, quotes), LONG))
        .isInstanceOf(ResultTooLargeException.class)
        .hasMessageContaining("max_allowed_packet");
    assertThat(store.find(id).orElseThrow().state()).isEqualTo(ClaimState.IN_PROGRESS);
  }

  /** The check refuses only what does not fit: a result just under the packet is stored. */
  @Test
  void aResultThatFitsThePacketIsStored() {
    ClaimId id = new ClaimId("acme", "export_report", "fits-" + table);
    LeaseToken token = LeaseToken.random();
    assertThat(store.claim(new ClaimRequest(id, "h", token, LONG, LONG)))
        .isInstanceOf(ClaimAttempt.Acquired.class);
    byte[] fits = new byte[(int) (largestThatFits() - 2 * MaxAllowedPacket.STATEMENT_ROOM)];
    java.util.Arrays.fill(fits, (byte) 'a');

    assertThat(store.complete(id, token, new StoredResult(StoredResult.Kind.VALUE, fits), LONG))
        .isTrue();
    assertThat(store.find(id).orElseThrow().state()).isEqualTo(ClaimState.COMPLETED);
  }

  /** Plain bytes just over what the driver sends in one packet are refused before they are sent. */
  @Test
  void plainBytesOverWhatTheDriverSendsInOnePacketAreRefused() {
    ClaimId id = new ClaimId("acme", "export_report", "plain-" + table);
    LeaseToken token = LeaseToken.random();
    assertThat(store.claim(new ClaimRequest(id, "h", token, LONG, LONG)))
        .isInstanceOf(ClaimAttempt.Acquired.class);
    byte[] over = new byte[(int) (largestThatFits() + 64 * 1024)];
    java.util.Arrays.fill(over, (byte) 'a');

    assertThatThrownBy(
            () -> store.complete(id, token, new StoredResult(StoredResult.Kind.VALUE, over), LONG))
        .isInstanceOf(ResultTooLargeException.class)
        .hasMessageContaining("max_allowed_packet");
    assertThat(store.find(id).orElseThrow().state()).isEqualTo(ClaimState.IN_PROGRESS);
  }
}
