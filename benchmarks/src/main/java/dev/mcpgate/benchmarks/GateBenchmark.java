package dev.mcpgate.benchmarks;

import dev.mcpgate.core.GateResult;
import dev.mcpgate.core.IdempotencyGate;
import dev.mcpgate.core.ResultMapper;
import dev.mcpgate.core.ToolCall;
import dev.mcpgate.core.memory.InMemoryIdempotencyStore;
import java.nio.charset.StandardCharsets;
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
import org.openjdk.jmh.annotations.Warmup;

/**
 * The gate over the in-memory store, one thread: a fresh call (hash, claim, action, complete) and a
 * replay (hash, claim, read the stored result), with a 1 KB argument map.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
@State(Scope.Thread)
public class GateBenchmark {
  private static final byte[] RESULT =
      "{\"refund_id\":\"re_123\"}".getBytes(StandardCharsets.UTF_8);

  private Map<String, Object> args;
  private IdempotencyGate gate;
  private ToolCall replayCall;
  private long counter;

  @Setup(Level.Iteration)
  public void setUp() {
    args = Payloads.ofApproximateBytes(1024, 7);
    // a new store per iteration keeps the map of fresh keys from growing without bound
    gate = IdempotencyGate.builder(InMemoryIdempotencyStore.create()).build();
    replayCall = ToolCall.of("acme", "refund_order", "replayed-key", args);
    gate.execute(replayCall, ResultMapper.bytes(), ctx -> RESULT);
  }

  @Benchmark
  public GateResult<byte[]> freshCall() {
    ToolCall call = ToolCall.of("acme", "refund_order", "key-" + (counter++), args);
    return gate.execute(call, ResultMapper.bytes(), ctx -> RESULT);
  }

  @Benchmark
  public GateResult<byte[]> replay() {
    return gate.execute(replayCall, ResultMapper.bytes(), ctx -> RESULT);
  }
}
