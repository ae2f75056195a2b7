package dev.mcpgate.core.hash;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * Properties of the canonical argument hash over random JSON trees: the same value hashes the
 * same however its objects' members are ordered and however its numbers are spelled; a change of
 * any one leaf changes the hash.
 */
class CanonicalHashProperties {

  /** A generated JSON value, turned into Java values in more than one spelling. */
  private sealed interface Node permits Obj, Arr, Str, Num, Bool, Null {}

  private record Obj(Map<String, Node> members) implements Node {}

  private record Arr(List<Node> items) implements Node {}

  private record Str(String value) implements Node {}

  private record Num(BigDecimal value) implements Node {}

  private record Bool(boolean value) implements Node {}

  private record Null() implements Node {}

  @Property(tries = 300)
  void memberOrderAndNumberSpellingDoNotChangeTheHash(@ForAll("arguments") Obj arguments,
      @ForAll long seed) {
    String plain = hash(arguments, null);
    String respelled = hash(arguments, new Random(seed));

    assertThat(respelled).isEqualTo(plain);
  }

  @Property(tries = 300)
  void changingAnyOneLeafChangesTheHash(@ForAll("arguments") Obj arguments,
      @ForAll long seed) {
    List<List<Object>> leaves = new ArrayList<>();
    collectLeaves(arguments, new ArrayList<>(), leaves);
    Random random = new Random(seed);
    List<Object> path = leaves.get(random.nextInt(leaves.size()));

    Node changed = changeLeaf(arguments, path, 0);

    assertThat(hash(changed, new Random(seed))).as("leaf at %s changed", path)
        .isNotEqualTo(hash(arguments, null));
  }

  @Provide
  Arbitrary<Obj> arguments() {
    return object(3).filter(o -> !o.members().isEmpty());
  }

  private Arbitrary<Obj> object(int depth) {
    return Arbitraries.maps(names(), value(depth - 1)).ofMaxSize(5).map(Obj::new);
  }

  private Arbitrary<Node> value(int depth) {
    Arbitrary<Node> leaf = Arbitraries.oneOf(
        Arbitraries.strings().ofMaxLength(8).map(Str::new),
        numbers().map(Num::new),
        Arbitraries.of(true, false).map(Bool::new),
        Arbitraries.just(new Null()));
    if (depth <= 0) {
      return leaf;
    }
    return Arbitraries.frequencyOf(
        net.jqwik.api.Tuple.of(4, leaf),
        net.jqwik.api.Tuple.of(1, object(depth).map(o -> (Node) o)),
        net.jqwik.api.Tuple.of(1, value(depth - 1).list().ofMaxSize(4).map(Arr::new)));
  }

  private static Arbitrary<String> names() {
    return Arbitraries.oneOf(
        Arbitraries.strings().alpha().ofMinLength(1).ofMaxLength(6),
        Arbitraries.strings().ofMinLength(0).ofMaxLength(4));   // any code units, empty too
  }

  private static Arbitrary<BigDecimal> numbers() {
    return Combinators.combine(
            Arbitraries.longs().between(-1_000_000_000_000L, 1_000_000_000_000L),
            Arbitraries.integers().between(-6, 12))
        .as((unscaled, scale) -> BigDecimal.valueOf(unscaled, scale));
  }

  // ---------------------------------------------------------------- spellings

  /** Hashes the tree; with a random source, members are shuffled and numbers respelled. */
  private static String hash(Obj arguments, Random respell) {
    @SuppressWarnings("unchecked")
    Map<String, Object> map = (Map<String, Object>) java(arguments, respell);
    return ArgumentHasher.hash(map, Set.of());
  }

  private static String hash(Node arguments, Random respell) {
    return hash((Obj) arguments, respell);
  }

  private static Object java(Node node, Random respell) {
    if (node instanceof Obj o) {
      List<Map.Entry<String, Node>> entries = new ArrayList<>(o.members().entrySet());
      if (respell != null) {
        Collections.shuffle(entries, respell);
      }
      Map<String, Object> map = new LinkedHashMap<>();
      for (Map.Entry<String, Node> e : entries) {
        map.put(e.getKey(), java(e.getValue(), respell));
      }
      return map;
    }
    if (node instanceof Arr a) {
      List<Object> list = new ArrayList<>();
      for (Node item : a.items()) {
        list.add(java(item, respell));
      }
      return list;
    }
    if (node instanceof Str s) {
      return s.value();
    }
    if (node instanceof Num n) {
      return respell == null ? n.value() : spell(n.value(), respell);
    }
    if (node instanceof Bool b) {
      return b.value();
    }
    return null;
  }

  /** Another Java spelling of the same decimal value, chosen at random among those it has. */
  private static Number spell(BigDecimal v, Random random) {
    List<Number> spellings = new ArrayList<>();
    spellings.add(v.setScale(v.scale() + 1 + random.nextInt(4)));   // trailing zeros: 1.0, 1.00
    BigDecimal stripped = v.stripTrailingZeros();
    spellings.add(stripped);                                         // 1E+1 for 10
    if (stripped.scale() <= 0) {
      BigInteger integer = stripped.toBigIntegerExact();
      spellings.add(integer);
      if (integer.bitLength() < 63) {
        spellings.add(integer.longValue());
      }
    }
    if (stripped.precision() <= 15) {
      spellings.add(v.doubleValue());   // 15 digits survive a double: it stands for this value
    }
    return spellings.get(random.nextInt(spellings.size()));
  }

  // ---------------------------------------------------------------- leaf changes

  private static void collectLeaves(Node node, List<Object> path, List<List<Object>> out) {
    boolean empty = node instanceof Obj o && o.members().isEmpty()
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

  private static Node changeLeaf(Node node, List<Object> path, int at) {
    if (at == path.size()) {
      return changed(node);
    }
    if (node instanceof Obj o) {
      Map<String, Node> members = new LinkedHashMap<>(o.members());
      String name = (String) path.get(at);
      members.put(name, changeLeaf(members.get(name), path, at + 1));
      return new Obj(members);
    }
    Arr a = (Arr) node;
    List<Node> items = new ArrayList<>(a.items());
    int index = (Integer) path.get(at);
    items.set(index, changeLeaf(items.get(index), path, at + 1));
    return new Arr(items);
  }

  /** A leaf of another value: never equal to the old one in JSON, whatever its spelling. */
  private static Node changed(Node leaf) {
    if (leaf instanceof Str s) {
      return new Str(s.value() + "x");
    }
    if (leaf instanceof Num n) {
      return new Num(n.value().add(BigDecimal.ONE.movePointLeft(Math.max(0, n.value().scale()))));
    }
    if (leaf instanceof Bool b) {
      return new Bool(!b.value());
    }
    if (leaf instanceof Null) {
      return new Str("null");
    }
    // an empty object or array: give it a member
    if (leaf instanceof Obj) {
      return new Obj(Map.of("added", new Null()));
    }
    return new Arr(List.of(new Null()));
  }
}
