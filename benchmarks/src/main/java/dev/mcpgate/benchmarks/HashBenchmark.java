package dev.mcpgate.benchmarks;

import dev.mcpgate.core.hash.ArgumentHasher;
import dev.mcpgate.core.hash.CanonicalJson;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The canonical argument hash of 1 KB, 64 KB and 1 MB argument maps, against plain SHA-256 over the
 * same canonical bytes (the floor: what hashing costs with no canonicalisation at all).
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
@State(Scope.Benchmark)
public class HashBenchmark {
  @Param({"1024", "65536", "1048576"})
  public int bytes;

  private Map<String, Object> args;
  private byte[] canonical;

  @Setup
  public void setUp() {
    args = Payloads.ofApproximateBytes(bytes, 11);
    canonical = CanonicalJson.toCanonicalString(args).getBytes(StandardCharsets.UTF_8);
  }

  @Benchmark
  public String canonicalHash() {
    return ArgumentHasher.hash(args, Set.of());
  }

  @Benchmark
  public byte[] plainSha256OfCanonicalBytes() throws Exception {
    return MessageDigest.getInstance("SHA-256").digest(canonical);
  }
}
