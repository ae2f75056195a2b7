package dev.mcpgate.core.hash;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.mcpgate.core.hash.JsonValues.Arr;
import dev.mcpgate.core.hash.JsonValues.Bool;
import dev.mcpgate.core.hash.JsonValues.Node;
import dev.mcpgate.core.hash.JsonValues.Null;
import dev.mcpgate.core.hash.JsonValues.Num;
import dev.mcpgate.core.hash.JsonValues.Obj;
import dev.mcpgate.core.hash.JsonValues.Str;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * Properties of the canonical argument hash over random JSON trees: the same value hashes the same
 * however its objects' members are ordered and however its numbers are spelled; a change of any one
 * leaf changes the hash.
 *
 * <p>Each property runs {@value #DEFAULT_TRIES} cases ({@code -Dmcpgate.tries=N} for more) drawn
 * from a seed chosen anew on every run; a failure names the seed, and {@code -Dmcpgate.seed=<seed>}
 * runs the same cases again.
 */
class CanonicalHashProperties {

  static final int DEFAULT_TRIES = 500;
  private static final int TRIES = Integer.getInteger("mcpgate.tries", DEFAULT_TRIES);
  private static final long SEED = seed();

  private static final ObjectMapper DOUBLES = new ObjectMapper();
  private static final ObjectMapper DECIMALS =
      new ObjectMapper().enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS);

  @Test
  void memberOrderAndNumberSpellingDoNotChangeTheHash() {
    forAll(
        "memberOrderAndNumberSpellingDoNotChangeTheHash",
        r -> {
          Obj arguments = JsonValues.arguments(r);
          String plain = hash(JsonValues.java(arguments, null));

          Object respelled = JsonValues.java(arguments, r);
          assertThat(hash(respelled))
              .as(
                  () ->
                      "as Java values: "
                          + JsonValues.describe(arguments)
                          + "\n  canonical "
                          + canonical(JsonValues.java(arguments, null))
                          + "\n  respelled "
                          + canonical(respelled))
              .isEqualTo(plain);

          boolean withDoubles = JsonValues.readableWithDoubles(arguments) && r.nextBoolean();
          String text = JsonValues.text(arguments, r, withDoubles);
          Map<String, Object> parsed = parse(text, withDoubles);
          assertThat(hash(parsed))
              .as(
                  () ->
                      "as JSON text, read with "
                          + (withDoubles ? "doubles" : "BigDecimal")
                          + ": "
                          + JsonValues.quote(text)
                          + "\n  of        "
                          + JsonValues.describe(arguments)
                          + "\n  canonical "
                          + canonical(JsonValues.java(arguments, null))
                          + "\n  parsed    "
                          + canonical(parsed))
              .isEqualTo(plain);
        });
  }

  @Test
  void changingAnyOneLeafChangesTheHash() {
    forAll(
        "changingAnyOneLeafChangesTheHash",
        r -> {
          Obj arguments = JsonValues.arguments(r);
          List<List<Object>> leaves = new ArrayList<>();
          collectLeaves(arguments, new ArrayList<>(), leaves);
          List<Object> path = leaves.get(r.nextInt(leaves.size()));
          Node changed = changeLeaf(arguments, path, 0, r);

          String original = hash(JsonValues.java(arguments, null));
          Object respelled =
              r.nextBoolean()
                  ? JsonValues.java(changed, r)
                  : parse(JsonValues.text(changed, r, false), false);
          assertThat(hash(respelled))
              .as(
                  () ->
                      "leaf at "
                          + JsonValues.quote(path.toString())
                          + " changed"
                          + "\n  from "
                          + JsonValues.describe(arguments)
                          + "\n  to   "
                          + JsonValues.describe(changed)
                          + "\n  canonical "
                          + canonical(respelled))
              .isNotEqualTo(original);
        });
  }

  // ---------------------------------------------------------------- seeded runs

  /** The seed of this run: -Dmcpgate.seed if given, else a fresh one. */
  private static long seed() {
    String given = System.getProperty("mcpgate.seed");
    if (given != null && !given.isBlank()) {
      return Long.decode(given.trim());
    }
    return new SplittableRandom().nextLong() ^ System.nanoTime();
  }

  /**
   * Runs the property on TRIES cases, each with its own random source split off the run's seed; any
   * failure is rethrown naming the seed that reproduces it.
   */
  private static void forAll(String property, Consumer<SplittableRandom> check) {
    SplittableRandom cases = new SplittableRandom(SEED ^ property.hashCode());
    for (int i = 0; i < TRIES; i++) {
      SplittableRandom r = cases.split();
      try {
        check.accept(r);
      } catch (Throwable t) {
        throw new AssertionError(
            property
                + " failed at case "
                + (i + 1)
                + " of "
                + TRIES
                + " with seed "
                + SEED
                + "; reproduce with -Dmcpgate.seed="
                + SEED
                + " -Dtest=CanonicalHashProperties#"
                + property
                + "\n"
                + t.getMessage(),
            t);
      }
    }
  }

  // ---------------------------------------------------------------- hashing

  private static String hash(Object arguments) {
    @SuppressWarnings("unchecked")
    Map<String, Object> map = (Map<String, Object>) arguments;
    return ArgumentHasher.hash(map, Set.of());
  }

  private static String canonical(Object value) {
    return JsonValues.quote(CanonicalJson.toCanonicalString(value));
  }

  private static Map<String, Object> parse(String text, boolean withDoubles) {
    try {
      @SuppressWarnings("unchecked")
      Map<String, Object> map = (withDoubles ? DOUBLES : DECIMALS).readValue(text, Map.class);
      return map;
    } catch (Exception e) {
      throw new AssertionError("generated JSON text does not parse: " + JsonValues.quote(text), e);
    }
  }

  // ---------------------------------------------------------------- leaf changes

  /** Paths (member names, indexes) of the leaves: scalars and empty objects or arrays. */
  private static void collectLeaves(Node node, List<Object> path, List<List<Object>> out) {
    boolean empty =
        node instanceof Obj o && o.members().isEmpty()
            || node instanceof Arr a && a.items().isEmpty();
    if (empty && !path.isEmpty()) {
      out.add(List.copyOf(path));
    } else if (node instanceof Obj o) {
      for (Map.Entry<String, Node> e : o.members().entrySet()) {
        path.add(e.getKey());
        collectLeaves(e.getValue(), path, out);
        path.remove(path.size() - 1);
      }
    } else if (node instanceof Arr a) {
      for (int i = 0; i < a.items().size(); i++) {
        path.add(i);
        collectLeaves(a.items().get(i), path, out);
        path.remove(path.size() - 1);
      }
    } else {
      out.add(List.copyOf(path));
    }
  }

  private static Node changeLeaf(Node node, List<Object> path, int at, SplittableRandom r) {
    if (at == path.size()) {
      return changed(node, r);
    }
    if (node instanceof Obj o) {
      Map<String, Node> members = new LinkedHashMap<>(o.members());
      String name = (String) path.get(at);
      members.put(name, changeLeaf(members.get(name), path, at + 1, r));
      return new Obj(members);
    }
    Arr a = (Arr) node;
    List<Node> items = new ArrayList<>(a.items());
    int index = (Integer) path.get(at);
    items.set(index, changeLeaf(items.get(index), path, at + 1, r));
    return new Arr(items);
  }

  /**
   * A leaf of another value: never equal to the old one in JSON, whatever its spelling. Half the
   * time a small change of the same type, else a value of another type.
   */
  private static Node changed(Node leaf, SplittableRandom r) {
    if (r.nextBoolean()) {
      Node other;
      do {
        other = JsonValues.value(r, 1);
      } while (other.getClass() == leaf.getClass());
      return other;
    }
    if (leaf instanceof Str s) {
      String v = s.value();
      int i = v.isEmpty() ? 0 : r.nextInt(v.length());
      return new Str(
          switch (v.isEmpty() ? 0 : r.nextInt(3)) {
            case 0 -> v + (r.nextBoolean() ? "x" : JsonValues.string(r, 3) + "\uD83D\uDE00");
            case 1 -> v.substring(0, i) + v.substring(i + 1); // one code unit fewer
            default ->
                v.substring(0, i) // one code unit other
                    + (char) (v.charAt(i) ^ (1 + r.nextInt(0xFFFF)))
                    + v.substring(i + 1);
          });
    }
    if (leaf instanceof Num n) {
      BigDecimal v = n.value();
      BigDecimal ulp = BigDecimal.ONE.movePointLeft(Math.max(0, v.scale()));
      return new Num(
          switch (v.signum() == 0 ? r.nextInt(2) : r.nextInt(4)) {
            case 0 -> v.add(ulp);
            case 1 -> v.subtract(ulp);
            case 2 -> v.negate();
            default -> v.scaleByPowerOfTen(r.nextBoolean() ? 1 : -1);
          });
    }
    if (leaf instanceof Bool b) {
      return new Bool(!b.value());
    }
    if (leaf instanceof Null) {
      return new Str("null");
    }
    // an empty object or array: give it a member
    if (leaf instanceof Obj) {
      return new Obj(Map.of(JsonValues.name(r), JsonValues.value(r, 1)));
    }
    return new Arr(List.of(JsonValues.value(r, 1)));
  }
}
