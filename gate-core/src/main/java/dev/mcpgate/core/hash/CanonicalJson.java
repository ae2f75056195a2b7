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
 *   <li>Object members sorted by name, comparing UTF-16 code units (as RFC 8785).
 *   <li>No insignificant white space; strings escaped as RFC 8785 does (only {@code "}, {@code \}
 *       and control characters; everything else as UTF-8). A lone surrogate, which RFC 8785
 *       rejects, is written as a lowercase {@code \\uXXXX} escape so that it stays distinct.
 *   <li>Numbers by exact decimal value: the value with trailing zeros stripped, written as {@link
 *       BigDecimal#toString()} ({@code 1}, {@code 1.0}, {@code 1e0} and {@code 10E-1} are all
 *       {@code 1}; {@code 10} is {@code 1E+1}). Integers are never rounded through double, so 2^53
 *       and 2^53+1 differ. A Java {@code double} stands for the shortest decimal that reads back as
 *       that double (computed here, the same on every JDK), so {@code 0.1} stays {@code 0.1}. NaN
 *       and infinities are rejected.
 *   <li>{@code null} is kept: {@code {"a":null}} differs from {@code {}}.
 *   <li>Arrays keep their order. Sets and other unordered collections are rejected.
 * </ul>
 *
 * <p>Accepted values: {@link Map} with string keys, {@link List}, arrays of objects, {@link
 * CharSequence}, {@link Boolean}, {@link Number} ({@code Integer}, {@code Long}, {@code Short},
 * {@code Byte}, {@code BigInteger}, {@code BigDecimal}, {@code Double}, {@code Float}) and {@code
 * null}: plain Java values, so that the core needs no JSON library. Anything else is rejected with
 * an {@link InvalidArgumentsException} that names its path (a Jackson tree of either line becomes
 * plain values with the MCP adapter's {@code JsonTrees}).
 *
 * <p>Bounds: at most {@value #MAX_DEPTH} levels of objects and arrays, {@value #MAX_ELEMENTS}
 * object members and array elements in all, and {@value #MAX_CANONICAL_BYTES} bytes of canonical
 * form. Arguments beyond any of them are refused with an {@link InvalidArgumentsException} that
 * names the bound and the path where it was crossed, and quotes no value. The depth bound keeps the
 * writer's recursion (under 1 KiB of stack a level: 256 levels hashed on a 256 KiB stack, 400 did
 * not) well inside the smallest thread stack a JVM allows; the other two bound the work one call
 * can make hashing take.
 */
public final class CanonicalJson {

  /**
   * The deepest nesting of objects and arrays accepted: 64 levels, under 64 KiB of stack to hash
   * (JSON readers accept more: Jackson 2 reads 1,000 by default, but a tool's arguments are rarely
   * 10 deep).
   */
  public static final int MAX_DEPTH = 64;

  /** The most object members and array elements accepted, counted over the whole value. */
  public static final int MAX_ELEMENTS = 1_000_000;

  /** The longest canonical form accepted, in bytes (16 MiB). */
  public static final long MAX_CANONICAL_BYTES = 16L * 1024 * 1024;

  /** The longest path an error message shows; a longer one keeps its start and end. */
  private static final int MAX_PATH_CHARS = 200;

  private static final byte[] NULL = "null".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] TRUE = "true".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] FALSE = "false".getBytes(StandardCharsets.US_ASCII);

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
      sink.finish();
    } catch (PathFailure failure) {
      throw new InvalidArgumentsException(
          "argument at " + shortPath("$" + failure.path) + " " + failure.getMessage());
    }
  }

  /** The path, or its start and end around an ellipsis when it is longer than a message shows. */
  private static String shortPath(String path) {
    if (path.length() <= MAX_PATH_CHARS) {
      return path;
    }
    int half = MAX_PATH_CHARS / 2;
    int head = Character.isHighSurrogate(path.charAt(half - 1)) ? half - 1 : half;
    int tail = path.length() - half;
    if (Character.isLowSurrogate(path.charAt(tail))) {
      tail++;
    }
    return path.substring(0, head) + "\u2026" + path.substring(tail);
  }

  private static final class Writer {
    private final CanonicalSink out;
    private final CanonicalStrings strings;

    /** Per nesting depth, the member names of the last object written there (see layout). */
    private Layout[] layouts;

    /** Object members and array elements met so far. */
    private int elements;

    Writer(CanonicalSink out) {
      this.out = out;
      this.strings = new CanonicalStrings(out);
    }

    void value(Object v, int depth) {
      // the final classes first: an exact class check each, before the interface checks
      if (v instanceof String s) {
        string(s);
      } else if (v instanceof Integer || v instanceof Long || v instanceof Double) {
        number((Number) v);
      } else if (v == null) {
        out.put(NULL);
      } else if (v instanceof Boolean b) {
        out.put(b ? TRUE : FALSE);
      } else if (v instanceof Map<?, ?> m) {
        object(m, depth + 1);
      } else if (v instanceof List<?> l) {
        array(l.iterator(), depth + 1);
      } else if (v instanceof CharSequence s) {
        string(s.toString());
      } else if (v instanceof Number n) {
        number(n);
      } else if (v instanceof Object[] a) {
        array(Arrays.asList(a).iterator(), depth + 1);
      } else {
        throw new PathFailure(
            "has type "
                + v.getClass().getName()
                + ", which has no canonical JSON form (use maps, lists, strings, numbers, booleans,"
                + " null)");
      }
    }

    private void checkDepth(int depth) {
      if (depth > MAX_DEPTH) {
        throw new PathFailure("is nested deeper than " + MAX_DEPTH + " levels");
      }
    }

    /** Counts n more members or elements, refusing the arguments past {@link #MAX_ELEMENTS}. */
    private void countElements(int n) {
      elements += n;
      if (elements > MAX_ELEMENTS || elements < 0) {
        throw new PathFailure(
            "brings the arguments to more than " + MAX_ELEMENTS + " members and elements in all");
      }
    }

    private void object(Map<?, ?> map, int depth) {
      checkDepth(depth);
      int size = map.size();
      countElements(size);
      String[] names = new String[size];
      Object[] values = new Object[size];
      int i = 0;
      for (Map.Entry<?, ?> e : map.entrySet()) {
        Object k = e.getKey();
        if (!(k instanceof String s)) {
          throw new PathFailure(
              "has a member name of type "
                  + (k == null ? "null" : k.getClass().getName())
                  + "; names must be strings");
        }
        names[i] = s;
        values[i++] = e.getValue();
      }
      Layout layout = layout(depth, names);
      if (layout != null) {
        out.put('{');
        for (int j = 0; j < size; j++) {
          byte[] prefix = layout.prefixes[j];
          out.put(prefix, 0, prefix.length);
          int at = layout.sorted[j];
          if (values[at] instanceof String s) {
            string(s); // a string cannot fail: no path to keep
          } else {
            member(names[at], values[at], depth);
          }
        }
        out.put('}');
        return;
      }
      String[] sortedNames = names.clone(); // names stays in iteration order, for the layout
      sortByName(sortedNames, values, size);
      out.put('{');
      for (int j = 0; j < size; j++) {
        if (j > 0) {
          out.put(',');
        }
        string(sortedNames[j]);
        out.put(':');
        member(sortedNames[j], values[j], depth);
      }
      out.put('}');
    }

    private void member(String name, Object value, int depth) {
      try {
        value(value, depth);
      } catch (PathFailure f) {
        throw f.under(pathSegment(name));
      }
    }

    /**
     * The layout to write an object with these names (in iteration order) at this depth, or null to
     * write it the plain way. Objects at one depth (the items of an array) tend to share their
     * names: the first object's names are remembered, the second with the same names builds the
     * layout, and the ones after it reuse it. Names are compared with equals, so a layout is only
     * ever used for exactly the names it was built from.
     */
    private Layout layout(int depth, String[] names) {
      if (names.length == 0 || depth >= MAX_LAYOUT_DEPTH || !small(names)) {
        return null;
      }
      if (layouts == null || layouts.length <= depth) {
        layouts =
            Arrays.copyOf(
                layouts == null ? new Layout[0] : layouts,
                Math.min(MAX_LAYOUT_DEPTH, Math.max(depth + 1, 8)));
      }
      Layout layout = layouts[depth];
      if (layout == null || !Arrays.equals(layout.names, names)) {
        layouts[depth] = new Layout(names);
        return null;
      }
      if (layout.prefixes == null) {
        layout.build();
      }
      return layout;
    }

    /**
     * Whether the names are short enough to keep as a layout: its buffer is sized for the worst
     * encoding of each character, outside the canonical-bytes budget, so long names (a call's own
     * choice) are written the plain way instead.
     */
    private static boolean small(String[] names) {
      long chars = 0;
      for (String name : names) {
        chars += name.length();
        if (chars > MAX_LAYOUT_NAME_CHARS) {
          return false;
        }
      }
      return true;
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
          countElements(1);
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

    private void string(String s) {
      strings.write(s);
    }
  }

  /** Layouts are kept for this many levels of nesting. */
  private static final int MAX_LAYOUT_DEPTH = 64;

  /**
   * An object's member names in iteration order and, once built, how to write them sorted:
   * sorted[j] is the iteration index of the j-th name in sorted order, prefixes[j] its canonical
   * bytes ({@code ,"name":}, without the comma for the first), encoded once.
   */
  /** The most characters of names a layout holds (its buffer is at most about 6 times that). */
  static final int MAX_LAYOUT_NAME_CHARS = 4_096;

  private static final class Layout {
    final String[] names;
    int[] sorted;
    byte[][] prefixes;

    Layout(String[] names) {
      this.names = names;
    }

    void build() {
      int size = names.length;
      String[] sortedNames = names.clone();
      Object[] order = new Object[size];
      for (int i = 0; i < size; i++) {
        order[i] = i;
      }
      Writer.sortByName(sortedNames, order, size);
      int[] sorted = new int[size];
      int bound = CanonicalSink.MAX_CHAR_BYTES;
      for (String name : names) {
        bound += CanonicalSink.MAX_CHAR_BYTES * name.length() + 4; // "name": and a comma
      }
      CanonicalSink sink =
          new CanonicalSink(null, null, bound, Long.MAX_VALUE); // never fills: never flushes
      Writer writer = new Writer(sink);
      byte[][] prefixes = new byte[size][];
      for (int j = 0; j < size; j++) {
        sorted[j] = (Integer) order[j];
        int start = sink.len;
        if (j > 0) {
          sink.put(',');
        }
        writer.string(sortedNames[j]);
        sink.put(':');
        prefixes[j] = Arrays.copyOfRange(sink.buf, start, sink.len);
      }
      this.sorted = sorted;
      this.prefixes = prefixes;
    }
  }

  /**
   * How a refusal's path names an object member: {@code .name} for a plain identifier, else {@code
   * ["name"]} quoted with what could forge or hide text in a log escaped, as every path this class
   * writes; for others that name a path in the same words.
   *
   * @param name the member's name, as the caller sent it
   * @return the path segment
   */
  public static String pathSegment(String name) {
    boolean plain = !name.isEmpty() && Character.isJavaIdentifierStart(name.charAt(0));
    for (int i = 1; plain && i < name.length(); i++) {
      char c = name.charAt(i); // the "ignorable" controls are parts of identifiers too: quote them
      plain = Character.isJavaIdentifierPart(c) && !Character.isIdentifierIgnorable(c);
    }
    return plain ? "." + name : "[" + Checks.quote(name) + "]";
  }
}
