package dev.mcpgate.benchmarks;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.mcpgate.cache.ReplayCache;
import dev.mcpgate.core.ClaimId;
import dev.mcpgate.core.GateResult;
import dev.mcpgate.core.IdempotencyGate;
import dev.mcpgate.core.LeaseToken;
import dev.mcpgate.core.ResultMapper;
import dev.mcpgate.core.ToolCall;
import dev.mcpgate.core.memory.InMemoryIdempotencyStore;
import dev.mcpgate.core.spi.ClaimAttempt;
import dev.mcpgate.core.spi.ClaimRequest;
import dev.mcpgate.core.spi.IdempotencyStore;
import dev.mcpgate.jdbc.JdbcIdempotencyStore;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The replay near-cache (module gate-cache), one thread, in one run beside what it saves:
 *
 * <ul>
 *   <li>{@code claim*}: the store's claim of a completed key alone (no hash, no gate): the cache's
 *       hit, the in-memory store, the JDBC store on embedded H2, and a plain primary-key {@code
 *       SELECT} of the same H2 row (the floor a database replay is measured against);
 *   <li>{@code replay*}: {@code gate.execute} of a replay with a 1 KB argument map (the canonical
 *       hash is most of it), over the cache and over the stores without it;
 *   <li>{@code replaySmallArgs*}: the same with a two-member argument map.
 * </ul>
 *
 * The cache's clock check (1 s) sends one claim a second to the store; that is in the numbers.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
@State(Scope.Thread)
public class ReplayCacheBenchmark {
  private static final byte[] RESULT =
      "{\"refund_id\":\"re_123\"}".getBytes(StandardCharsets.UTF_8);
  private static final String TABLE = "mcpgate_claims_bench";

  private HikariDataSource pool;
  private JdbcIdempotencyStore h2;
  private IdempotencyStore memory;
  private ReplayCache cachedMemory;
  private ReplayCache cachedH2;
  private List<IdempotencyGate> gates;
  private IdempotencyGate gateMemory;
  private IdempotencyGate gateCachedMemory;
  private IdempotencyGate gateH2;
  private IdempotencyGate gateCachedH2;
  private ToolCall call;
  private ToolCall smallCall;
  private ClaimRequest request;

  @Setup(Level.Trial)
  public void setUp() {
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl("jdbc:h2:mem:bench-cache;DB_CLOSE_DELAY=-1");
    config.setUsername("sa");
    config.setPassword("");
    config.setMaximumPoolSize(4);
    pool = new HikariDataSource(config);
    h2 = JdbcIdempotencyStore.builder(pool).tableName(TABLE).createSchemaIfMissing(true).build();
    memory = InMemoryIdempotencyStore.create();
    cachedMemory = ReplayCache.wrap(memory, 10_000);
    cachedH2 = ReplayCache.wrap(h2, 10_000);
    gateMemory = IdempotencyGate.builder(memory).build();
    gateCachedMemory = IdempotencyGate.builder(cachedMemory).build();
    gateH2 = IdempotencyGate.builder(h2).build();
    gateCachedH2 = IdempotencyGate.builder(cachedH2).build();
    gates = List.of(gateMemory, gateCachedMemory, gateH2, gateCachedH2);

    Map<String, Object> args = Payloads.ofApproximateBytes(1024, 7);
    call = ToolCall.of("acme", "refund_order", "replayed-key", args);
    smallCall =
        ToolCall.of("acme", "refund_order", "small-key", Map.of("order", "o-1", "amount", 42));
    for (IdempotencyGate gate :
        List.of(gateMemory, gateH2)) { // the cached gates share these stores
      gate.execute(call, ResultMapper.bytes(), ctx -> RESULT);
      gate.execute(smallCall, ResultMapper.bytes(), ctx -> RESULT);
    }
    for (IdempotencyGate gate : gates) { // the first replay fills the caches
      gate.execute(call, ResultMapper.bytes(), ctx -> RESULT);
      gate.execute(smallCall, ResultMapper.bytes(), ctx -> RESULT);
    }
    request =
        new ClaimRequest(
            call.id(), "v1:any", LeaseToken.random(), Duration.ofSeconds(2), Duration.ofHours(24));
    cachedMemory.claim(request);
    cachedH2.claim(request);
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    gates.forEach(IdempotencyGate::close);
    h2.close();
    pool.close();
  }

  // ------------------------------------------------------------------ the claim alone

  @Benchmark
  public ClaimAttempt claimCached() {
    return cachedH2.claim(request);
  }

  @Benchmark
  public ClaimAttempt claimInMemory() {
    return memory.claim(request);
  }

  @Benchmark
  public ClaimAttempt claimH2() {
    return h2.claim(request);
  }

  /** The floor of a database replay: one primary-key SELECT of the same row, autocommitted. */
  @Benchmark
  public byte[] pkSelectH2() throws SQLException {
    ClaimId id = call.id();
    try (Connection c = pool.getConnection();
        PreparedStatement s =
            c.prepareStatement(
                "SELECT state, result FROM "
                    + TABLE
                    + " WHERE tenant = ? AND tool = ? AND idem_key = ?")) {
      s.setString(1, id.tenant());
      s.setString(2, id.tool());
      s.setString(3, id.key());
      try (ResultSet rs = s.executeQuery()) {
        return rs.next() ? rs.getBytes(2) : null;
      }
    }
  }

  // ------------------------------------------------------------------ gate.execute, 1 KB

  @Benchmark
  public GateResult<byte[]> replayCached() {
    return gateCachedH2.execute(call, ResultMapper.bytes(), ctx -> RESULT);
  }

  @Benchmark
  public GateResult<byte[]> replayInMemory() {
    return gateMemory.execute(call, ResultMapper.bytes(), ctx -> RESULT);
  }

  @Benchmark
  public GateResult<byte[]> replayH2() {
    return gateH2.execute(call, ResultMapper.bytes(), ctx -> RESULT);
  }

  // ------------------------------------------------------------------ gate.execute, small

  @Benchmark
  public GateResult<byte[]> replaySmallArgsCached() {
    return gateCachedMemory.execute(smallCall, ResultMapper.bytes(), ctx -> RESULT);
  }

  @Benchmark
  public GateResult<byte[]> replaySmallArgsInMemory() {
    return gateMemory.execute(smallCall, ResultMapper.bytes(), ctx -> RESULT);
  }
}
