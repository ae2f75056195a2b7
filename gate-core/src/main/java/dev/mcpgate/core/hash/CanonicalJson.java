package dev.mcpgate.core.hash;

import com.fasterxml.jackson.databind.JsonNode;
import dev.mcpgate.core.InvalidArgumentsException;
import java.io.ByteArrayOutputStream;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.MathContext;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * The canonical JSON form (version 1) that argument hashes are computed over.
 *
 * <ul>
 *   <li>Object members sorted by name, comparing UTF-16 code units (as RFC 8785).</li>
 *   <li>No insignificant white space; strings escaped as RFC 8785 does (only {@code "}, {@code \}
 *       and control characters; everything else as UTF-8). A lone surrogate, which RFC 8785
 *       rejects, is written as a lowercase {@code \\uXXXX} escape so that it stays distinct.</li>
 *   <li>Numbers by exact decimal value: the value with trailing zeros stripped, written as
 *       {@link BigDecimal#toString()} ({@code 1}, {@code 1.0}, {@code 1e0} and {@code 10E-1} are
 *       all {@code 1}; {@code 10} is {@code 1E+1}). Integers are never rounded through double,
 *       so 2^53 and 2^53+1 differ. A Java {@code double} stands for the shortest decimal that
 *       reads back as that double (computed here, the same on every JDK), so {@code 0.1} stays
 *       {@code 0.1}. NaN and infinities are rejected.</li>
 *   <li>{@code null} is kept: {@code {"a":null}} differs from {@code {}}.</li>
 *   <li>Arrays keep their order. Sets and other unordered collections are rejected.</li>
 * </ul>
 *
 * <p>Accepted values: {@link Map} with string keys, {@link List}, arrays of objects,
 * {@link CharSequence}, {@link Boolean}, {@link Number} ({@code Integer}, {@code Long},
 * {@code Short}, {@code Byte}, {@code BigInteger}, {@code BigDecimal}, {@code Double},
 * {@code Float}), {@code null}, and Jackson {@link JsonNode}s. Anything else is rejected with an
 * {@link InvalidArgumentsException} that names its path.
 */
public final class CanonicalJson {

  /** The deepest nesting of objects and arrays accepted. */
  public static final int MAX_DEPTH = 1000;

  private static final byte[] NULL = "null".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] TRUE = "true".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] FALSE = "false".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] HEX = "0123456789abcdef".getBytes(StandardCharsets.US_ASCII);

  private CanonicalJson() {}

  /**
   * @param value a JSON-like value
   * @return its canonical form as a string (for tests and debugging; hashing streams instead)
   * @throws InvalidArgumentsException if the value has no canonical form
   */
  public static String toCanonicalString(Object value) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    write(value, new Sink(null, out));
    return out.toString(StandardCharsets.UTF_8);
  }

  /** Streams the canonical form of value into digest. */
  static void digest(Object value, MessageDigest digest) {
    write(value, new Sink(digest, null));
  }

  private static void write(Object value, Sink sink) {
    try {
      new Writer(sink).value(value, 0);
    } catch (PathFailure failure) {
      throw new InvalidArgumentsException(
          "argument at $" + failure.path + " " + failure.getMessage());
    }
    sink.finish();
  }

  /** Buffers bytes and hands them on in blocks, to a digest or to a byte stream. */
  private static final class Sink {
    final byte[] buf = new byte[1024];
    int len;
    private final MessageDigest digest;
    private final ByteArrayOutputStream stream;

    Sink(MessageDigest digest, ByteArrayOutputStream stream) {
      this.digest = digest;
      this.stream = stream;
    }

    void flush() {
      if (digest != null) {
        digest.update(buf, 0, len);
      } else {
        stream.write(buf, 0, len);
      }
      len = 0;
    }

    void put(int b) {
      if (len == buf.length) {
        flush();
      }
      buf[len++] = (byte) b;
    }

    void put(byte[] bytes) {
      for (byte b : bytes) {
        put(b);
      }
    }

    void putAscii(String s) {
      for (int i = 0; i < s.length(); i++) {
        put(s.charAt(i));
      }
    }

    void finish() {
      if (len > 0) {
        flush();
      }
    }
  }

  /** Carries the path of a bad value up the recursion, one segment per level. */
  private static final class PathFailure extends RuntimeException {
    private static final long serialVersionUID = 1L;
    String path = "";

    PathFailure(String message) {
      super(message, null, false, false);
    }

    PathFailure under(String segment) {
      path = segment + path;
      return this;
    }
  }

  private static final class Writer {
    private final Sink out;

    Writer(Sink out) {
      this.out = out;
    }

    void value(Object v, int depth) {
      if (v == null) {
        out.put(NULL);
      } else if (v instanceof CharSequence s) {
        string(s);
      } else if (v instanceof Boolean b) {
        out.put(b ? TRUE : FALSE);
      } else if (v instanceof Number n) {
        number(n);
      } else if (v instanceof Map<?, ?> m) {
        object(m, depth + 1);
      } else if (v instanceof List<?> l) {
        array(l.iterator(), depth + 1);
      } else if (v instanceof Object[] a) {
        array(Arrays.asList(a).iterator(), depth + 1);
      } else if (v instanceof JsonNode node) {
        node(node, depth);
      } else {
        throw new PathFailure("has type " + v.getClass().getName()
            + ", which has no canonical JSON form (use maps, lists, strings, numbers, booleans, null)");
      }
    }

    private void checkDepth(int depth) {
      if (depth > MAX_DEPTH) {
        throw new PathFailure("is nested deeper than " + MAX_DEPTH + " levels");
      }
    }

    private void object(Map<?, ?> map, int depth) {
      checkDepth(depth);
      int size = map.size();
      String[] names = new String[size];
      Object[] values = new Object[size];
      int i = 0;
      for (Map.Entry<?, ?> e : map.entrySet()) {
        Object k = e.getKey();
        if (!(k instanceof String s)) {
          throw new PathFailure("has a member name of type "
              + (k == null ? "null" : k.getClass().getName()) + "; names must be strings");
        }
        names[i] = s;
        values[i++] = e.getValue();
      }
      sortByName(names, values, size);
      out.put('{');
      for (int j = 0; j < size; j++) {
        if (j > 0) {
          out.put(',');
        }
        string(names[j]);
        out.put(':');
        try {
          value(values[j], depth);
        } catch (PathFailure f) {
          throw f.under(memberSegment(names[j]));
        }
      }
      out.put('}');
    }

    /** Sorts names (UTF-16 code unit order) and values along with them. */
    private static void sortByName(String[] names, Object[] values, int size) {
      if (size <= 16) {
        // insertion sort: tool arguments and their nested objects are small
        for (int i = 1; i < size; i++) {
          String name = names[i];
          Object value = values[i];
          int j = i - 1;
          while (j >= 0 && names[j].compareTo(name) > 0) {
            names[j + 1] = names[j];
            values[j + 1] = values[j];
            j--;
          }
          names[j + 1] = name;
          values[j + 1] = value;
        }
        return;
      }
      Integer[] order = new Integer[size];
      for (int i = 0; i < size; i++) {
        order[i] = i;
      }
      Arrays.sort(order, (a, b) -> names[a].compareTo(names[b]));
      String[] sortedNames = new String[size];
      Object[] sortedValues = new Object[size];
      for (int i = 0; i < size; i++) {
        sortedNames[i] = names[order[i]];
        sortedValues[i] = values[order[i]];
      }
      System.arraycopy(sortedNames, 0, names, 0, size);
      System.arraycopy(sortedValues, 0, values, 0, size);
    }

    private void array(Iterator<?> items, int depth) {
      checkDepth(depth);
      out.put('[');
      int i = 0;
      while (items.hasNext()) {
        if (i > 0) {
          out.put(',');
        }
        try {
          value(items.next(), depth);
        } catch (PathFailure f) {
          throw f.under("[" + i + "]");
        }
        i++;
      }
      out.put(']');
    }

    private void node(JsonNode node, int depth) {
      switch (node.getNodeType()) {
        case NULL -> out.put(NULL);
        case BOOLEAN -> out.put(node.booleanValue() ? TRUE : FALSE);
        case STRING -> string(node.textValue());
        case NUMBER -> number(node.numberValue());
        case ARRAY -> array(node.elements(), depth + 1);
        case OBJECT -> {
          int d = depth + 1;
          checkDepth(d);
          String[] names = new String[node.size()];
          Iterator<String> it = node.fieldNames();
          for (int i = 0; it.hasNext(); i++) {
            names[i] = it.next();
          }
          Arrays.sort(names);
          out.put('{');
          for (int j = 0; j < names.length; j++) {
            if (j > 0) {
              out.put(',');
            }
            string(names[j]);
            out.put(':');
            try {
              node(node.get(names[j]), d);
            } catch (PathFailure f) {
              throw f.under(memberSegment(names[j]));
            }
          }
          out.put('}');
        }
        default -> throw new PathFailure("is a JSON node of type " + node.getNodeType()
            + ", which has no canonical JSON form");
      }
    }

    private void number(Number n) {
      if (n instanceof Integer || n instanceof Long || n instanceof Short || n instanceof Byte) {
        integer(n.longValue());
      } else if (n instanceof Double d) {
        floating(d);
      } else if (n instanceof Float f) {
        if (f.isNaN() || f.isInfinite()) {
          throw new PathFailure("is " + f + "; NaN and infinities have no JSON form");
        }
        decimal(shortest(new BigDecimal(f.doubleValue()), x -> x.floatValue() == f));
      } else if (n instanceof BigInteger bi) {
        decimal(new BigDecimal(bi));
      } else if (n instanceof BigDecimal bd) {
        decimal(bd);
      } else {
        throw new PathFailure("is a number of type " + n.getClass().getName()
            + ", which is not supported (use Integer, Long, BigInteger, BigDecimal, Double)");
      }
    }

    private void integer(long l) {
      if (l % 10 != 0) {
        digits(l);
      } else {
        decimal(BigDecimal.valueOf(l));
      }
    }

    /** Writes l in decimal, without allocating. */
    private void digits(long l) {
      if (l < 0) {
        out.put('-');
        if (l == Long.MIN_VALUE) {
          out.putAscii("9223372036854775808");
          return;
        }
        l = -l;
      }
      if (l < 10) {
        out.put('0' + (int) l);
        return;
      }
      byte[] tmp = new byte[19];
      int n = 0;
      while (l > 0) {
        tmp[n++] = (byte) ('0' + (l % 10));
        l /= 10;
      }
      while (n > 0) {
        out.put(tmp[--n]);
      }
    }

    /**
     * Writes m * 10^-k (k > 0, m not a multiple of 10) as {@link BigDecimal#toString()} would,
     * for the values it writes in plain notation; returns false for the others.
     */
    private boolean plainDecimal(long m, int k) {
      long abs = Math.abs(m);
      int precision = 1;
      for (long t = abs; t >= 10; t /= 10) {
        precision++;
      }
      if (k > 18 || precision - k - 1 < -6) {
        return false;   // 10^k overflows a long, or BigDecimal switches to exponent notation
      }
      if (m < 0) {
        out.put('-');
      }
      long scale = 1;
      for (int i = 0; i < k; i++) {
        scale *= 10;
      }
      digits(abs / scale);
      out.put('.');
      long fraction = abs % scale;
      for (long f = scale / 10; f > fraction && f > 1; f /= 10) {
        out.put('0');
      }
      digits(fraction);
      return true;
    }

    private void floating(double d) {
      if (Double.isNaN(d) || Double.isInfinite(d)) {
        throw new PathFailure("is " + d + "; NaN and infinities have no JSON form");
      }
      if (d == Math.rint(d) && Math.abs(d) < 0x1p53) {
        integer((long) d);
        return;
      }
      // A decimal of at most 15 significant digits that reads back as d is the only such decimal
      // (DBL_DIG = 15), so it is the shortest, however it was found. First try m * 10^-k for
      // small k: m / 10^k in double arithmetic is correctly rounded (both exact), so the test is
      // exact. Then the JDK's own printing; then the exhaustive search.
      long[] scaled = scaledDecimal(d);
      if (scaled != null) {
        if (!plainDecimal(scaled[0], (int) scaled[1])) {
          decimal(BigDecimal.valueOf(scaled[0], (int) scaled[1]));
        }
        return;
      }
      BigDecimal printed = new BigDecimal(Double.toString(d));
      if (printed.precision() <= 15 || printed.stripTrailingZeros().precision() <= 15) {
        decimal(printed);
      } else {
        decimal(shortest(new BigDecimal(d), x -> x.doubleValue() == d));
      }
    }

    private void decimal(BigDecimal d) {
      if (d.signum() == 0) {
        out.put('0');
      } else {
        out.putAscii(d.stripTrailingZeros().toString());
      }
    }

    private void string(CharSequence cs) {
      String s = cs.toString();
      out.put('"');
      int n = s.length();
      int i = 0;
      while (i < n) {
        // copy plain printable ASCII in bulk: no escaping, one byte a char
        if (out.len == out.buf.length) {
          out.flush();
        }
        byte[] buf = out.buf;
        int pos = out.len;
        int end = Math.min(n, i + (buf.length - pos));
        while (i < end) {
          char c = s.charAt(i);
          if (c < 0x20 || c >= 0x7f || c == '"' || c == '\\') {
            break;
          }
          buf[pos++] = (byte) c;
          i++;
        }
        out.len = pos;
        if (i < end) {
          i = special(s, i, n);
        }
      }
      out.put('"');
    }

    /** Writes the character at i that needs escaping or multi-byte UTF-8; returns the next index. */
    private int special(String s, int i, int n) {
      char c = s.charAt(i);
      if (c < 0x80) {
        if (c == '"' || c == '\\') {
          out.put('\\');
          out.put(c);
        } else if (c >= 0x20) {
          out.put(c);
        } else {
          switch (c) {
            case '\b' -> { out.put('\\'); out.put('b'); }
            case '\t' -> { out.put('\\'); out.put('t'); }
            case '\n' -> { out.put('\\'); out.put('n'); }
            case '\f' -> { out.put('\\'); out.put('f'); }
            case '\r' -> { out.put('\\'); out.put('r'); }
            default -> unicodeEscape(c);
          }
        }
      } else if (c < 0x800) {
        out.put(0xc0 | (c >> 6));
        out.put(0x80 | (c & 0x3f));
      } else if (Character.isHighSurrogate(c) && i + 1 < n
          && Character.isLowSurrogate(s.charAt(i + 1))) {
        int cp = Character.toCodePoint(c, s.charAt(++i));
        out.put(0xf0 | (cp >> 18));
        out.put(0x80 | ((cp >> 12) & 0x3f));
        out.put(0x80 | ((cp >> 6) & 0x3f));
        out.put(0x80 | (cp & 0x3f));
      } else if (Character.isSurrogate(c)) {
        unicodeEscape(c);
      } else {
        out.put(0xe0 | (c >> 12));
        out.put(0x80 | ((c >> 6) & 0x3f));
        out.put(0x80 | (c & 0x3f));
      }
      return i + 1;
    }

    private void unicodeEscape(char c) {
      out.put('\\');
      out.put('u');
      out.put(HEX[(c >> 12) & 0xf]);
      out.put(HEX[(c >> 8) & 0xf]);
      out.put(HEX[(c >> 4) & 0xf]);
      out.put(HEX[c & 0xf]);
    }
  }

  private static final double[] POW10 = {
      1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
      1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

  /**
   * @return {m, k} with |m| below 10^15 and m not a multiple of 10, such that m * 10^-k reads back
   *     as d; or null if none is found quickly
   */
  private static long[] scaledDecimal(double d) {
    for (int k = 1; k < POW10.length; k++) {
      double scaled = d * POW10[k];
      if (Math.abs(scaled) >= 1e15) {
        return null;
      }
      long m = Math.round(scaled);
      if (m != 0 && (double) m / POW10[k] == d) {
        int scale = k;
        while (m % 10 == 0 && scale > 0) {
          m /= 10;
          scale--;
        }
        return scale == 0 ? null : new long[] {m, scale};
      }
    }
    return null;
  }

  /** The shortest decimal (fewest significant digits) that reads back as the same binary value. */
  private static BigDecimal shortest(BigDecimal exact, java.util.function.Predicate<BigDecimal> readsBack) {
    for (int digits = 1; digits <= 17; digits++) {
      BigDecimal candidate = exact.round(new MathContext(digits, RoundingMode.HALF_EVEN));
      if (readsBack.test(candidate)) {
        return candidate;
      }
    }
    return exact;
  }

  private static String memberSegment(String name) {
    boolean plain = !name.isEmpty() && Character.isJavaIdentifierStart(name.charAt(0));
    for (int i = 1; plain && i < name.length(); i++) {
      plain = Character.isJavaIdentifierPart(name.charAt(i));
    }
    return plain ? "." + name : "[" + dev.mcpgate.core.internal.Checks.quote(name) + "]";
  }
}
