package dev.mcpgate.benchmarks;

import dev.mcpgate.core.hash.ArgumentHasher;
import dev.mcpgate.core.hash.CanonicalJson;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
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
 * What the canonical hash's walk costs per kind of value: {@value #ITEMS} values of one kind in a
 * list, hashed, against plain SHA-256 over the same canonical bytes. (canonicalHash - plainSha256)
 * / {@value #ITEMS} is the walk's cost of one value of that kind, list element included.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
@State(Scope.Benchmark)
public class HashWalkBenchmark {
  static final int ITEMS = 640;

  /**
   * ints: 5-digit integers; doubles: prices with two decimals; shortStrings: {@code sku-N};
   * longStrings: 45 ASCII characters; unicodeStrings: the same with 7 non-ASCII letters;
   * emptyObjects; objects4: four integer members each.
   */
  @Param({
    "ints",
    "doubles",
    "shortStrings",
    "longStrings",
    "unicodeStrings",
    "emptyObjects",
    "objects4"
  })
  public String shape;

  private Map<String, Object> args;
  private byte[] canonical;

  @Setup
  public void setUp() {
    Random random = new Random(1);
    List<Object> items = new ArrayList<>();
    for (int i = 0; i < ITEMS; i++) {
      items.add(
          switch (shape) {
            case "ints" -> random.nextInt(100_000);
            case "doubles" -> random.nextInt(100_000) / 100.0;
            case "shortStrings" -> "sku-" + i;
            case "longStrings" -> "line item " + i + " with a short human note, unicode";
            case "unicodeStrings" -> "line item " + i + " with a short human note, ünïcödé";
            case "emptyObjects" -> new LinkedHashMap<>();
            case "objects4" -> {
              Map<String, Object> m = new LinkedHashMap<>();
              m.put("sku", i);
              m.put("qty", i + 1);
              m.put("price", i + 2);
              m.put("note", i + 3);
              yield m;
            }
            default -> throw new IllegalArgumentException("no such shape: " + shape);
          });
    }
    args = Map.of("items", items);
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
