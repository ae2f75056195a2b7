package dev.mcpgate.core.hash;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;

/**
 * Random JSON trees for the property tests, drawn from a seeded {@link SplittableRandom} (so a seed
 * reproduces a tree), and more than one way to spell the same tree: as Java values (members in any
 * order, any map, list or array type, numbers as any Java type that holds the value) and as JSON
 * text (members in any order, white space, escapes, number literals such as {@code 1}, {@code 1.0},
 * {@code 1e0}, {@code 10E-1}, {@code 0.1e+1}).
 */
final class JsonValues {

  /** A generated JSON value. */
  sealed interface Node permits Obj, Arr, Str, Num, Bool, Null {}

  record Obj(Map<String, Node> members) implements Node {}

  record Arr(List<Node> items) implements Node {}

  record Str(String value) implements Node {}

  /** A number by its decimal value; its scale (trailing zeros) is not part of the value. */
  record Num(BigDecimal value) implements Node {}

  record Bool(boolean value) implements Node {}

  record Null() implements Node {}

  private static final BigDecimal DOUBLE_MIN = new BigDecimal("1e-290");
  private static final BigDecimal DOUBLE_MAX = new BigDecimal("1e290");
  private static final BigDecimal FLOAT_MIN = new BigDecimal("1e-30");
  private static final BigDecimal FLOAT_MAX = new BigDecimal("1e30");
  private static final BigInteger TWO_53 = BigInteger.ONE.shiftLeft(53);

  private JsonValues() {}

  // ---------------------------------------------------------------- generation

  /** Tool arguments: an object with at least one member, nested up to four levels. */
  static Obj arguments(SplittableRandom r) {
    Obj o;
    do {
      o = object(r, 4);
    } while (o.members().isEmpty());
    return o;
  }

  static Obj object(SplittableRandom r, int depth) {
    int size = r.nextInt(6);
    Map<String, Node> members = new LinkedHashMap<>();
    for (int i = 0; i < size; i++) {
      members.put(name(r), value(r, depth - 1));
    }
    return new Obj(members);
  }

  static Arr array(SplittableRandom r, int depth) {
    int size = r.nextInt(5);
    List<Node> items = new ArrayList<>();
    for (int i = 0; i < size; i++) {
      items.add(value(r, depth - 1));
    }
    return new Arr(items);
  }

  /** A leaf four times in six; otherwise an object or an array (which may be empty). */
  static Node value(SplittableRandom r, int depth) {
    if (depth <= 0) {
      return leaf(r);
    }
    return switch (r.nextInt(6)) {
      case 0 -> object(r, depth);
      case 1 -> array(r, depth);
      default -> leaf(r);
    };
  }

  static Node leaf(SplittableRandom r) {
    int k = r.nextInt(10);
    if (k < 3) {
      return new Str(string(r, r.nextInt(10) == 0 ? 24 : 8));
    }
    if (k < 8) {
      return new Num(number(r));
    }
    if (k < 9) {
      return new Bool(r.nextBoolean());
    }
    return new Null();
  }

  static String name(SplittableRandom r) {
    return switch (r.nextInt(4)) {
      case 0, 1 -> alpha(r, 1 + r.nextInt(6));
      case 2 -> List.of("a", "b", "A", "id", "key", "_", "").get(r.nextInt(7));
      default -> string(r, 4); // any code units, empty too
    };
  }

  private static String alpha(SplittableRandom r, int length) {
    String letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
    StringBuilder s = new StringBuilder();
    for (int i = 0; i < length; i++) {
      s.append(letters.charAt(r.nextInt(letters.length())));
    }
    return s.toString();
  }

  /**
   * A string of up to maxLength code units: ASCII (quote, backslash and slash too), control
   * characters, other BMP characters (line separators, BOM, U+FFFF, ligatures), surrogate pairs
   * and, now and then, a lone surrogate.
   */
  static String string(SplittableRandom r, int maxLength) {
    int length = r.nextInt(maxLength + 1);
    StringBuilder s = new StringBuilder();
    while (s.length() < length) {
      int k = r.nextInt(20);
      if (k < 6) {
        s.append((char) ('a' + r.nextInt(26)));
      } else if (k < 9) {
        s.append((char) (0x20 + r.nextInt(0x5f))); // printable ASCII, " \ / included
      } else if (k < 10) {
        s.append("\"\\/".charAt(r.nextInt(3)));
      } else if (k < 11) {
        s.append(r.nextInt(8) == 0 ? (char) 0x7f : (char) r.nextInt(0x20)); // control
      } else if (k < 13) {
        s.append((char) (0x80 + r.nextInt(0x780))); // Latin-1 and on: two UTF-8 bytes
      } else if (k < 15) {
        char c;
        do {
          c = (char) (0x800 + r.nextInt(0x10000 - 0x800));
        } while (Character.isSurrogate(c));
        s.append(c); // rest of the BMP: three UTF-8 bytes
      } else if (k < 16) {
        s.append("\u2028\u2029\uFEFF\uFFFF\uFFFE\uFB01\u00E9\u0000".charAt(r.nextInt(8)));
      } else if (k < 19) {
        int cp = r.nextBoolean() ? 0x1F600 + r.nextInt(0x50) : 0x10000 + r.nextInt(0x100000);
        s.appendCodePoint(cp); // a surrogate pair: four UTF-8 bytes
      } else {
        s.append(
            r.nextBoolean() // a lone surrogate
                ? (char) (0xD800 + r.nextInt(0x400))
                : (char) (0xDC00 + r.nextInt(0x400)));
      }
    }
    return s.toString();
  }

  /**
   * A decimal value with some scale: small integers, the range the old generator had (twelve
   * digits, scales -6..12), integers around 2^53 and the long limits, big integers and decimals of
   * up to 130 bits, short decimals such as 0.1, zeros of any scale, values with trailing zeros.
   */
  static BigDecimal number(SplittableRandom r) {
    return switch (r.nextInt(10)) {
      case 0 -> BigDecimal.valueOf(r.nextInt(-10, 11));
      case 1, 2 ->
          BigDecimal.valueOf(
              r.nextLong(-1_000_000_000_000L, 1_000_000_000_001L), r.nextInt(-6, 13));
      case 3 -> new BigDecimal(signed(r, TWO_53.add(BigInteger.valueOf(r.nextInt(-3, 4)))));
      case 4 ->
          new BigDecimal(
              signed(
                  r, BigInteger.valueOf(Long.MAX_VALUE).add(BigInteger.valueOf(r.nextInt(-2, 3)))));
      case 5 ->
          new BigDecimal(
              signed(r, new BigInteger(54 + r.nextInt(150), new java.util.Random(r.nextLong()))));
      case 6 ->
          new BigDecimal(
              signed(r, new BigInteger(1 + r.nextInt(130), new java.util.Random(r.nextLong()))),
              r.nextInt(-40, 41));
      case 7 -> BigDecimal.valueOf(r.nextInt(-999, 1000), 1 + r.nextInt(4));
      case 8 -> BigDecimal.valueOf(0, r.nextInt(-3, 4));
      default ->
          BigDecimal.valueOf(
              r.nextLong(-99_999, 100_000) * pow10(1 + r.nextInt(6)), r.nextInt(0, 7));
    };
  }

  private static BigInteger signed(SplittableRandom r, BigInteger magnitude) {
    return r.nextBoolean() ? magnitude : magnitude.negate();
  }

  private static long pow10(int n) {
    long p = 1;
    for (int i = 0; i < n; i++) {
      p *= 10;
    }
    return p;
  }

  // ---------------------------------------------------------------- spellings as Java values

  /**
   * The tree as plain Java values: with respell null, LinkedHashMap in generation order, ArrayList,
   * String, the BigDecimal as generated; otherwise another spelling chosen at random.
   */
  static Object java(Node node, SplittableRandom respell) {
    if (node instanceof Obj o) {
      List<Map.Entry<String, Node>> entries = new ArrayList<>(o.members().entrySet());
      Map<String, Object> map = new LinkedHashMap<>();
      if (respell != null) {
        Collections.shuffle(entries, new java.util.Random(respell.nextLong()));
        map =
            switch (respell.nextInt(4)) {
              case 0 -> new HashMap<>();
              case 1 -> new TreeMap<>(Comparator.reverseOrder());
              default -> map;
            };
      }
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
      if (respell == null) {
        return list;
      }
      return switch (respell.nextInt(4)) {
        case 0 -> list.toArray();
        case 1 -> new LinkedList<>(list);
        case 2 -> Arrays.asList(list.toArray());
        default -> list;
      };
    }
    if (node instanceof Str s) {
      if (respell != null && respell.nextInt(4) == 0) {
        return new StringBuilder(s.value()); // any CharSequence
      }
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
  static Number spell(BigDecimal v, SplittableRandom r) {
    List<Number> spellings = new ArrayList<>();
    BigDecimal stripped = v.stripTrailingZeros();
    spellings.add(v);
    spellings.add(stripped); // 1E+1 for 10
    spellings.add(stripped.setScale(Math.max(stripped.scale(), 0) + r.nextInt(5))); // 1.00
    if (stripped.scale() <= 0) {
      BigInteger integer = stripped.toBigIntegerExact();
      spellings.add(integer);
      int bits = integer.bitLength();
      if (bits < 64) {
        spellings.add(integer.longValue());
      }
      if (bits < 32) {
        spellings.add(integer.intValue());
      }
      if (bits < 16) {
        spellings.add(integer.shortValue());
      }
      if (bits < 8) {
        spellings.add(integer.byteValue());
      }
    }
    if (v.signum() == 0) {
      spellings.add(0.0);
      spellings.add(-0.0);
      spellings.add(0.0f);
    } else {
      if (doubleHolds(v)) {
        spellings.add(v.doubleValue()); // 15 digits survive a double: it stands for this value
      }
      if (floatHolds(v)) {
        spellings.add(v.floatValue()); // and 6 digits a float
      }
    }
    return spellings.get(r.nextInt(spellings.size()));
  }

  /** Whether the double nearest v stands for v: at most 15 digits, far from under/overflow. */
  static boolean doubleHolds(BigDecimal v) {
    BigDecimal abs = v.abs();
    return v.signum() == 0
        || v.stripTrailingZeros().precision() <= 15
            && abs.compareTo(DOUBLE_MIN) >= 0
            && abs.compareTo(DOUBLE_MAX) <= 0;
  }

  static boolean floatHolds(BigDecimal v) {
    BigDecimal abs = v.abs();
    return v.signum() == 0
        || v.stripTrailingZeros().precision() <= 6
            && abs.compareTo(FLOAT_MIN) >= 0
            && abs.compareTo(FLOAT_MAX) <= 0;
  }

  // ---------------------------------------------------------------- spellings as JSON text

  /**
   * Whether the text of this tree can be read with doubles for fractions (Jackson's default): every
   * number is either held by a double or an integer (which is then written without fraction or
   * exponent, and read as int, long or BigInteger).
   */
  static boolean readableWithDoubles(Node node) {
    if (node instanceof Obj o) {
      return o.members().values().stream().allMatch(JsonValues::readableWithDoubles);
    }
    if (node instanceof Arr a) {
      return a.items().stream().allMatch(JsonValues::readableWithDoubles);
    }
    if (node instanceof Num n) {
      return doubleHolds(n.value()) || n.value().stripTrailingZeros().scale() <= 0;
    }
    return true;
  }

  /**
   * The tree as JSON text, respelled at random: members shuffled, white space between tokens,
   * characters escaped or not, numbers as any literal of their value. With withDoubles, a number
   * not held by a double is written as a plain integer (it is one: see readableWithDoubles).
   */
  static String text(Node node, SplittableRandom r, boolean withDoubles) {
    StringBuilder out = new StringBuilder();
    write(node, r, withDoubles, out);
    space(r, out);
    return out.toString();
  }

  private static void write(Node node, SplittableRandom r, boolean withDoubles, StringBuilder out) {
    space(r, out);
    if (node instanceof Obj o) {
      List<Map.Entry<String, Node>> entries = new ArrayList<>(o.members().entrySet());
      Collections.shuffle(entries, new java.util.Random(r.nextLong()));
      out.append('{');
      for (int i = 0; i < entries.size(); i++) {
        if (i > 0) {
          space(r, out);
          out.append(',');
        }
        space(r, out);
        string(entries.get(i).getKey(), r, out);
        space(r, out);
        out.append(':');
        write(entries.get(i).getValue(), r, withDoubles, out);
      }
      space(r, out);
      out.append('}');
    } else if (node instanceof Arr a) {
      out.append('[');
      for (int i = 0; i < a.items().size(); i++) {
        if (i > 0) {
          space(r, out);
          out.append(',');
        }
        write(a.items().get(i), r, withDoubles, out);
      }
      space(r, out);
      out.append(']');
    } else if (node instanceof Str s) {
      string(s.value(), r, out);
    } else if (node instanceof Num n) {
      boolean integerOnly = withDoubles && !doubleHolds(n.value());
      out.append(literal(n.value(), r, integerOnly));
    } else if (node instanceof Bool b) {
      out.append(b.value());
    } else {
      out.append("null");
    }
  }

  private static void space(SplittableRandom r, StringBuilder out) {
    while (r.nextInt(5) == 0) {
      out.append(" \t\n\r".charAt(r.nextInt(4)));
    }
  }

  private static void string(String s, SplittableRandom r, StringBuilder out) {
    out.append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      boolean escape = r.nextInt(5) == 0;
      if (Character.isHighSurrogate(c)
          && i + 1 < s.length()
          && Character.isLowSurrogate(s.charAt(i + 1))) {
        char low = s.charAt(++i);
        if (escape) {
          unicode(c, r, out);
          unicode(low, r, out);
        } else {
          out.append(c).append(low);
        }
      } else if (Character.isSurrogate(c)) {
        unicode(c, r, out); // a lone surrogate only as an escape
      } else if (c == '"' || c == '\\') {
        if (escape) {
          unicode(c, r, out);
        } else {
          out.append('\\').append(c);
        }
      } else if (c < 0x20) {
        int shortForm = "\b\f\n\r\t".indexOf(c);
        if (shortForm >= 0 && !escape) {
          out.append('\\').append("bfnrt".charAt(shortForm));
        } else {
          unicode(c, r, out);
        }
      } else if (c == '/' && escape) {
        out.append(r.nextBoolean() ? "\\/" : "\\u002F");
      } else if (escape) {
        unicode(c, r, out);
      } else {
        out.append(c);
      }
    }
    out.append('"');
  }

  private static void unicode(char c, SplittableRandom r, StringBuilder out) {
    String hex = String.format("%04x", (int) c);
    out.append("\\u").append(r.nextBoolean() ? hex : hex.toUpperCase(java.util.Locale.ROOT));
  }

  /**
   * A JSON number literal of value v: the digits with trailing zeros added, the decimal point
   * anywhere (or none, or after a leading 0), an exponent to make up ({@code e}, {@code E}, {@code
   * +} or not, {@code e0} now and then).
   */
  static String literal(BigDecimal v, SplittableRandom r, boolean integerOnly) {
    BigDecimal stripped = v.stripTrailingZeros();
    if (integerOnly) {
      return stripped.toBigIntegerExact().toString();
    }
    StringBuilder out = new StringBuilder();
    if (v.signum() < 0 || v.signum() == 0 && r.nextInt(4) == 0) {
      out.append('-'); // -0 too
    }
    String digits;
    int scale; // |v| = digits * 10^-scale
    if (v.signum() == 0) {
      digits = "0";
      scale = 0;
    } else {
      digits = stripped.unscaledValue().abs().toString();
      scale = stripped.scale();
    }
    int zeros = r.nextInt(4);
    if (v.signum() != 0) {
      digits += "0".repeat(zeros);
      scale += zeros;
    }
    int point = r.nextInt(digits.length() + 1); // digits before the decimal point
    if (v.signum() == 0) {
      point = 1;
    }
    String integer = point == 0 ? "0" : digits.substring(0, point);
    String fraction = (point == 0 ? "0".repeat(r.nextInt(3)) : "") + digits.substring(point);
    if (v.signum() == 0) {
      fraction = "0".repeat(zeros);
    }
    out.append(integer);
    if (!fraction.isEmpty()) {
      out.append('.').append(fraction);
    }
    // the literal without exponent is digits * 10^-fraction.length(); make up the difference
    long exponent = (long) fraction.length() - scale;
    if (v.signum() == 0) {
      exponent = r.nextInt(-5, 6);
    }
    if (exponent != 0 || r.nextInt(4) == 0) {
      out.append(r.nextBoolean() ? 'e' : 'E');
      if (exponent > 0 && r.nextBoolean()) {
        out.append('+');
      } else if (exponent == 0 && r.nextBoolean()) {
        out.append(r.nextBoolean() ? '+' : '-');
      }
      out.append(exponent);
    }
    return out.toString();
  }

  // ---------------------------------------------------------------- for failure messages

  /** The tree in JSON, with every character outside printable ASCII escaped, numbers as given. */
  static String describe(Node node) {
    StringBuilder out = new StringBuilder();
    describe(node, out);
    return out.toString();
  }

  private static void describe(Node node, StringBuilder out) {
    if (node instanceof Obj o) {
      out.append('{');
      String sep = "";
      for (Map.Entry<String, Node> e : o.members().entrySet()) {
        out.append(sep);
        sep = ",";
        quote(e.getKey(), out);
        out.append(':');
        describe(e.getValue(), out);
      }
      out.append('}');
    } else if (node instanceof Arr a) {
      out.append('[');
      String sep = "";
      for (Node item : a.items()) {
        out.append(sep);
        sep = ",";
        describe(item, out);
      }
      out.append(']');
    } else if (node instanceof Str s) {
      quote(s.value(), out);
    } else if (node instanceof Num n) {
      out.append(n.value());
    } else if (node instanceof Bool b) {
      out.append(b.value());
    } else {
      out.append("null");
    }
  }

  static String quote(String s) {
    StringBuilder out = new StringBuilder();
    quote(s, out);
    return out.toString();
  }

  private static void quote(String s, StringBuilder out) {
    out.append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c == '"' || c == '\\') {
        out.append('\\').append(c);
      } else if (c < 0x20 || c > 0x7e) {
        out.append(String.format("\\u%04x", (int) c));
      } else {
        out.append(c);
      }
    }
    out.append('"');
  }
}
