package dev.mcpgate.benchmarks;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * Argument maps of a given canonical size, shaped like tool arguments (strings, numbers, lists).
 */
final class Payloads {
  private Payloads() {}

  static Map<String, Object> ofApproximateBytes(int bytes, long seed) {
    Random random = new Random(seed);
    Map<String, Object> args = new LinkedHashMap<>();
    args.put("order_id", "ord_" + Long.toHexString(random.nextLong()));
    args.put("amount_cents", 12_345);
    args.put("currency", "EUR");
    List<Object> lines = new ArrayList<>();
    int size = 80;
    int i = 0;
    while (size < bytes) {
      Map<String, Object> line = new LinkedHashMap<>();
      line.put("sku", "sku-" + i);
      line.put("qty", random.nextInt(10) + 1);
      line.put("price", random.nextInt(100_000) / 100.0);
      line.put("note", "line item " + i + " with a short human note, ünïcödé");
      lines.add(line);
      size += 100;
      i++;
    }
    args.put("lines", lines);
    return args;
  }
}
