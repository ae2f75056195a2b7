package dev.mcpgate.core.hash;

import dev.mcpgate.core.InvalidArgumentsException;
import dev.mcpgate.core.internal.Checks;
import java.io.ByteArrayOutputStream;
import java.math.BigDecimal;
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
 * {@code Float}) and {@code null}: plain Java values, so that the core needs no JSON library.
 * Anything else is rejected with an {@link InvalidArgumentsException} that names its path (a
 * Jackson tree of either line becomes plain values with the MCP adapter's {@code JsonTrees}).
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
    write(value, new CanonicalSink(null, out));
    return out.toString(StandardCharsets.UTF_8);
  }

  /** Streams the canonical form of value into digest. */
  static void digest(Object value, MessageDigest digest) {
    write(value, new CanonicalSink(digest, null));
  }

  private static void write(Object value, CanonicalSink sink) {
    try {
      new Writer(sink).value(value, 0);
    } catch (PathFailure failure) {
      throw new InvalidArgumentsException(
          "argument at $" + failure.path + " " + failure.getMessage());
    }
    sink.finish();
  }

  private static final class Writer {
    private final CanonicalSink out;

    Writer(CanonicalSink out) {
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

    private void number(Number n) {
      CanonicalNumbers.write(n, out);
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

  private static String memberSegment(String name) {
    boolean plain = !name.isEmpty() && Character.isJavaIdentifierStart(name.charAt(0));
    for (int i = 1; plain && i < name.length(); i++) {
      plain = Character.isJavaIdentifierPart(name.charAt(i));
    }
    return plain ? "." + name : "[" + Checks.quote(name) + "]";
  }
}
