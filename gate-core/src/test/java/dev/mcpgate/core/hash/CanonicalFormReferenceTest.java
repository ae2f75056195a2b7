package dev.mcpgate.core.hash;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.MathContext;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * The optimised canonical writer against a plain reference written from the rules of docs/design.md
 * ("Canonical JSON (version 1)"): a StringBuilder, BigDecimal for every number, an exhaustive
 * search for the shortest decimal of a double. Random strings aimed at the writer's fast paths
 * (plain ASCII, Latin-1, a real {@code ?}, characters beyond Latin-1, surrogates, runs across the
 * eight-byte search and the 1 KB buffer) and random trees, with arrays of objects that share their
 * member names (the writer's cached member layouts).
 */
class CanonicalFormReferenceTest {
  private static final int TRIES = Integer.getInteger("mcpgate.tries", 2000);
  private static final long SEED = Long.getLong("mcpgate.seed", System.nanoTime());

  @Test
  void stringsAreWrittenAsTheReferenceWritesThem() {
    SplittableRandom cases = new SplittableRandom(SEED);
    for (int i = 0; i < TRIES; i++) {
      SplittableRandom r = cases.split();
      String s = string(r, r.nextInt(8) == 0 ? 3000 : 40);
      assertThat(CanonicalJson.toCanonicalString(s))
          .as("seed %d case %d: %s", SEED, i, JsonValues.quote(s))
          .isEqualTo(reference(s));
    }
  }

  @Test
  void treesAreWrittenAsTheReferenceWritesThem() {
    SplittableRandom cases = new SplittableRandom(SEED ^ 1);
    for (int i = 0; i < TRIES / 8; i++) {
      SplittableRandom r = cases.split();
      Object tree = r.nextBoolean() ? JsonValues.java(JsonValues.arguments(r), r) : rows(r, 0);
      assertThat(CanonicalJson.toCanonicalString(tree))
          .as("seed %d case %d", SEED, i)
          .isEqualTo(reference(tree));
    }
  }

  // ---------------------------------------------------------------- generators

  /** Mostly ASCII, with Latin-1, question marks, and now and then anything else. */
  private static String string(SplittableRandom r, int maxLength) {
    int length = r.nextInt(maxLength + 1);
    int mix = r.nextInt(4); // 0: ASCII only, 1: + Latin-1, 2: + ?, 3: anything
    StringBuilder s = new StringBuilder();
    while (s.length() < length) {
      int k = r.nextInt(40);
      if (k < 30 || mix == 0 && k < 38) {
        s.append((char) (0x20 + r.nextInt(0x5f)));
      } else if (k < 33 && mix >= 1) {
        s.append((char) (0x80 + r.nextInt(0x80)));
      } else if (k < 35 && mix >= 2) {
        s.append('?');
      } else if (k < 38 && mix == 3) {
        s.append(JsonValues.string(r, 3));
      } else {
        s.append("\"\\\n\u0000\u001f\u007f".charAt(r.nextInt(6)));
      }
    }
    return s.toString();
  }

  /** An array of objects sharing (some of) their member names, in varying order and map types. */
  private static Object rows(SplittableRandom r, int depth) {
    List<String> names = new ArrayList<>();
    for (int i = r.nextInt(1, 24); i > 0; i--) {
      names.add(r.nextInt(5) == 0 ? JsonValues.name(r) : "m" + r.nextInt(30));
    }
    List<Object> rows = new ArrayList<>();
    for (int i = r.nextInt(1, 12); i > 0; i--) {
      List<String> these = new ArrayList<>(names);
      if (r.nextInt(4) == 0) {
        Collections.shuffle(these, new java.util.Random(r.nextLong()));
      }
      if (r.nextInt(6) == 0 && !these.isEmpty()) {
        these.set(r.nextInt(these.size()), JsonValues.name(r)); // one name different
      }
      if (r.nextInt(6) == 0) {
        these.replaceAll(String::new); // equal names, other instances
      }
      Map<String, Object> row =
          switch (r.nextInt(3)) {
            case 0 -> new LinkedHashMap<>();
            case 1 -> new HashMap<>();
            default -> new TreeMap<>();
          };
      for (String name : these) {
        row.put(
            name,
            depth < 2 && r.nextInt(20) == 0
                ? rows(r.split(), depth + 1)
                : JsonValues.java(JsonValues.leaf(r), r));
      }
      rows.add(r.nextInt(8) == 0 ? List.of(row) : row);
    }
    return Map.of("rows", rows);
  }

  // ---------------------------------------------------------------- the reference

  private static String reference(Object v) {
    StringBuilder out = new StringBuilder();
    write(v, out);
    return out.toString();
  }

  private static void write(Object v, StringBuilder out) {
    if (v == null) {
      out.append("null");
    } else if (v instanceof Boolean b) {
      out.append(b);
    } else if (v instanceof CharSequence s) {
      string(s.toString(), out);
    } else if (v instanceof Number n) {
      out.append(number(n));
    } else if (v instanceof Map<?, ?> m) {
      List<String> names = new ArrayList<>();
      m.keySet().forEach(k -> names.add((String) k));
      Collections.sort(names); // String.compareTo: UTF-16 code units
      out.append('{');
      for (int i = 0; i < names.size(); i++) {
        out.append(i > 0 ? "," : "");
        string(names.get(i), out);
        out.append(':');
        write(m.get(names.get(i)), out);
      }
      out.append('}');
    } else {
      List<?> items = v instanceof Object[] a ? Arrays.asList(a) : (List<?>) v;
      out.append('[');
      for (int i = 0; i < items.size(); i++) {
        out.append(i > 0 ? "," : "");
        write(items.get(i), out);
      }
      out.append(']');
    }
  }

  private static void string(String s, StringBuilder out) {
    out.append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      boolean pair =
          Character.isHighSurrogate(c)
              && i + 1 < s.length()
              && Character.isLowSurrogate(s.charAt(i + 1));
      if (pair) {
        out.append(c).append(s.charAt(++i));
      } else if (c == '"' || c == '\\') {
        out.append('\\').append(c);
      } else if (c < 0x20) {
        int shortForm = "\b\t\n\f\r".indexOf(c);
        out.append(
            shortForm >= 0 ? "\\" + "btnfr".charAt(shortForm) : String.format("\\u%04x", (int) c));
      } else if (Character.isSurrogate(c)) {
        out.append(String.format("\\u%04x", (int) c));
      } else {
        out.append(c);
      }
    }
    out.append('"');
  }

  private static String number(Number n) {
    BigDecimal exact;
    if (n instanceof Double d) {
      exact = shortest(new BigDecimal(d), x -> x.doubleValue() == d);
    } else if (n instanceof Float f) {
      exact = shortest(new BigDecimal(f.doubleValue()), x -> x.floatValue() == f);
    } else if (n instanceof BigDecimal bd) {
      exact = bd;
    } else if (n instanceof BigInteger bi) {
      exact = new BigDecimal(bi);
    } else {
      exact = BigDecimal.valueOf(n.longValue());
    }
    return exact.signum() == 0 ? "0" : exact.stripTrailingZeros().toString();
  }

  private static BigDecimal shortest(
      BigDecimal exact, java.util.function.Predicate<BigDecimal> readsBack) {
    if (exact.signum() == 0) {
      return exact;
    }
    for (int digits = 1; digits <= 17; digits++) {
      BigDecimal c = exact.round(new MathContext(digits, RoundingMode.HALF_EVEN));
      if (readsBack.test(c)) {
        return c;
      }
    }
    return exact;
  }
}
