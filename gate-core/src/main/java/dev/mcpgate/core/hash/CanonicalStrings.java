package dev.mcpgate.core.hash;

import java.nio.charset.StandardCharsets;

/**
 * Writes strings into a {@link CanonicalSink} as canonical JSON strings in UTF-8: quoted, with only
 * the quote, the backslash and control characters escaped (a short escape where JSON has one, else
 * a six-character unicode escape), for {@link CanonicalJson}'s writer.
 */
final class CanonicalStrings {
  private static final byte[] HEX = "0123456789abcdef".getBytes(StandardCharsets.US_ASCII);

  /** The ASCII characters written as they are: all but control characters, quote and backslash. */
  private static final boolean[] PLAIN = new boolean[0x80];

  static {
    for (char c = 0x20; c < 0x80; c++) {
      PLAIN[c] = c != '"' && c != '\\';
    }
  }

  /** Strings up to this long are first tried as plain ASCII, without a copy. */
  private static final int SHORT_STRING = 16;

  private final CanonicalSink out;

  CanonicalStrings(CanonicalSink out) {
    this.out = out;
  }

  /**
   * Writes s as a JSON string in UTF-8. Fast path: s as Latin-1 (for a string the JDK holds as
   * Latin-1, a plain copy), searched eight bytes at a time for the bytes that need escaping or two
   * bytes of UTF-8, and copied in runs between them. The encoder writes {@code ?} for a character
   * beyond Latin-1; from the first such character on, s is written char by char.
   */
  void write(String s) {
    if (s.length() <= SHORT_STRING && shortAscii(s)) {
      return;
    }
    out.put('"');
    byte[] latin = s.getBytes(StandardCharsets.ISO_8859_1);
    int n = latin.length;
    if (n != s.length()) {
      stringByChars(s, 0); // a surrogate pair became one ?: bytes and chars do not align
      return;
    }
    // copy up to the first byte that needs attention; from there byte by byte while such bytes
    // are close together, and back to the eight-byte search after eight plain ones
    int i = Latin1Scan.firstSpecial(latin, 0);
    out.put(latin, 0, i);
    int plain = 0;
    while (i < n) {
      if (plain == 8) {
        int next = Latin1Scan.firstSpecial(latin, i);
        out.put(latin, i, next - i);
        i = next;
        plain = 0;
        continue;
      }
      out.ensure(CanonicalSink.MAX_CHAR_BYTES);
      int b = latin[i] & 0xff;
      if (b < 0x80 && PLAIN[b] && b != '?') {
        out.buf[out.len++] = (byte) b;
        plain++;
      } else {
        plain = 0;
        if (b >= 0x80) {
          out.buf[out.len++] = (byte) (0xc0 | (b >> 6));
          out.buf[out.len++] = (byte) (0x80 | (b & 0x3f));
        } else if (b != '?') {
          special((char) b, '\0');
        } else if (s.charAt(i) == '?') {
          out.buf[out.len++] = '?'; // a real question mark
        } else {
          stringByChars(s, i); // a character beyond Latin-1: the rest char by char
          return;
        }
      }
      i++;
    }
    out.put('"');
  }

  /**
   * Writes s, quoted, if it is all printable ASCII that needs no escape (a short name or value, the
   * common case) and returns true; else writes nothing and returns false.
   */
  private boolean shortAscii(String s) {
    int n = s.length();
    out.ensure(n + 2);
    byte[] buf = out.buf;
    int pos = out.len;
    buf[pos++] = '"';
    for (int i = 0; i < n; i++) {
      char c = s.charAt(i);
      if (c >= 0x80 || !PLAIN[c]) {
        return false;
      }
      buf[pos++] = (byte) c;
    }
    buf[pos++] = '"';
    out.len = pos;
    return true;
  }

  /**
   * Writes s from index from on, character by character, and the closing quote. The characters are
   * copied out in chunks and written straight into the sink's buffer.
   */
  private void stringByChars(String s, int from) {
    char[] chars = out.chars();
    int n = s.length();
    int i = from;
    while (i < n) {
      int count = Math.min(n - i, chars.length);
      s.getChars(i, i + count, chars, 0);
      i += chunk(s, chars, count, i);
    }
    out.put('"');
  }

  /**
   * Writes chars[0..count), which are s's characters from offset on; returns how many of s's
   * characters it consumed (count, or count + 1 when a surrogate pair straddles the chunk).
   */
  private int chunk(String s, char[] chars, int count, int offset) {
    byte[] buf = out.buf;
    int limit = buf.length - CanonicalSink.MAX_CHAR_BYTES;
    int pos = out.len;
    int k = 0;
    while (k < count) {
      if (pos > limit) {
        out.len = pos;
        out.flush();
        pos = 0;
      }
      char c = chars[k];
      if (c < 0x80 && PLAIN[c]) {
        buf[pos++] = (byte) c;
        k++;
      } else if (c >= 0x80 && c < 0x800) {
        buf[pos++] = (byte) (0xc0 | (c >> 6));
        buf[pos++] = (byte) (0x80 | (c & 0x3f));
        k++;
      } else {
        out.len = pos;
        int next = offset + k + 1;
        boolean pairs =
            Character.isHighSurrogate(c)
                && next < s.length()
                && Character.isLowSurrogate(k + 1 < count ? chars[k + 1] : s.charAt(next));
        if (pairs) {
          special(c, k + 1 < count ? chars[k + 1] : s.charAt(next));
          k += 2;
        } else {
          special(c, '\0');
          k++;
        }
        pos = out.len;
      }
    }
    out.len = pos;
    return k;
  }

  /**
   * Writes c, a character that needs escaping or three bytes of UTF-8, or the surrogate pair c, low
   * (low is 0 unless c is a high surrogate followed by the low surrogate low).
   */
  private void special(char c, char low) {
    if (c < 0x80) {
      if (c == '"' || c == '\\') {
        out.put('\\');
        out.put(c);
      } else {
        switch (c) {
          case '\b' -> {
            out.put('\\');
            out.put('b');
          }
          case '\t' -> {
            out.put('\\');
            out.put('t');
          }
          case '\n' -> {
            out.put('\\');
            out.put('n');
          }
          case '\f' -> {
            out.put('\\');
            out.put('f');
          }
          case '\r' -> {
            out.put('\\');
            out.put('r');
          }
          default -> unicodeEscape(c);
        }
      }
    } else if (low != 0) {
      int cp = Character.toCodePoint(c, low);
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
