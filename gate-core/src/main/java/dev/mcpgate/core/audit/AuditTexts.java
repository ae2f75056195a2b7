package dev.mcpgate.core.audit;

import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.Collection;
import java.util.Iterator;
import java.util.Map;

/** Cuts the texts of an audit record to its budget, saying so at the end of what is kept. */
final class AuditTexts {
  private AuditTexts() {}

  /**
   * @param text a text, or null
   * @param max the most characters to keep, the marker included (at least 64)
   * @return text when it fits; else its start and a marker {@code …[cut: kept K of N characters]},
   *     never ending inside a surrogate pair, at most max characters in all
   */
  static String cut(String text, int max) {
    if (text == null || text.length() <= max) {
      return text;
    }
    return cut(text, max, text.length());
  }

  /**
   * @param start the start of a text, at least max characters long
   * @param total how long the whole text is, or -1 when it is not known (it was not rendered)
   */
  static String cut(CharSequence start, int max, long total) {
    int kept = max - marker(max, total).length();
    if (Character.isHighSurrogate(start.charAt(kept - 1))) {
      kept--;
    }
    return start.subSequence(0, kept) + marker(kept, total);
  }

  private static String marker(int kept, long total) {
    return total < 0
        ? "\u2026[cut: kept " + kept + " characters; the rest was not rendered]"
        : "\u2026[cut: kept " + kept + " of " + total + " characters]";
  }

  /**
   * The names, sorted, as {@code [a, b]}: no more of them than fit in max characters.
   *
   * @param names the names, sorted
   */
  static String names(Collection<String> names, int max) {
    StringBuilder out = new StringBuilder("[");
    long total = 2L + 2L * Math.max(0, names.size() - 1);
    boolean first = true;
    for (String name : names) {
      total += name.length();
      if (out.length() <= max) {
        if (!first) {
          out.append(", ");
        }
        append(name, out, max);
      }
      first = false;
    }
    if (total <= max) {
      return out.append(']').toString();
    }
    return cut(out, max, total);
  }

  /**
   * The value as {@link java.util.AbstractMap#toString()} and {@link
   * java.util.AbstractCollection#toString()} write it ({@code {a=1, b=[x, y]}}; arrays as lists),
   * without recursion (so any nesting renders on any stack) and no further than max characters.
   */
  static String render(Object value, int max) {
    StringBuilder out = new StringBuilder();
    ArrayDeque<Frame> open = new ArrayDeque<>(); // the maps and lists open, innermost first
    scalarOrOpen(value, out, open, max);
    while (!open.isEmpty() && out.length() <= max) {
      Frame frame = open.peek();
      if (!frame.items.hasNext()) {
        open.pop();
        out.append(frame.close);
        continue;
      }
      if (!frame.first) {
        out.append(", ");
      }
      frame.first = false;
      Object item = frame.items.next();
      if (frame.close == '}' && item instanceof Map.Entry<?, ?> e) {
        append(String.valueOf(e.getKey()), out, max);
        out.append('=');
        item = e.getValue();
      }
      scalarOrOpen(item, out, open, max);
    }
    if (open.isEmpty() && out.length() <= max) {
      return out.toString();
    }
    return cut(out, max, -1);
  }

  private static void scalarOrOpen(
      Object value, StringBuilder out, ArrayDeque<Frame> open, int max) {
    if (value instanceof Map<?, ?> m) {
      out.append('{');
      open.push(new Frame(m.entrySet().iterator(), '}'));
    } else if (value instanceof Collection<?> c) {
      out.append('[');
      open.push(new Frame(c.iterator(), ']'));
    } else if (value instanceof Object[] a) {
      out.append('[');
      open.push(new Frame(Arrays.asList(a).iterator(), ']'));
    } else {
      append(String.valueOf(value), out, max);
    }
  }

  /** Appends no more of s than takes out one past max (enough to know that it was cut). */
  private static void append(String s, StringBuilder out, int max) {
    out.append(s, 0, Math.max(0, Math.min(s.length(), max + 1 - out.length())));
  }

  private static final class Frame {
    final Iterator<?> items;
    final char close;
    boolean first = true;

    Frame(Iterator<?> items, char close) {
      this.items = items;
      this.close = close;
    }
  }
}
