package dev.mcpgate.core.hash;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * Finds the bytes of a Latin-1 encoded string that the canonical form cannot copy as they are,
 * eight bytes at a time (SWAR: each test is the classic "has a zero byte" bit trick, exact as a
 * test of whether any byte of the word qualifies; the byte itself is then found one at a time).
 */
final class Latin1Scan {
  private static final VarHandle LONGS =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
  private static final long ONES = 0x0101010101010101L;
  private static final long HIGHS = 0x8080808080808080L;

  private Latin1Scan() {}

  /**
   * @return the index, at or after from, of the first byte below 0x20, at or above 0x80, {@code "},
   *     {@code \} or {@code ?} (the encoder's stand-in for a character beyond Latin-1); the length
   *     when there is none
   */
  static int firstSpecial(byte[] bytes, int from) {
    int n = bytes.length;
    int i = from;
    while (i + 8 <= n && !special((long) LONGS.get(bytes, i))) {
      i += 8;
    }
    for (; i < n; i++) {
      byte b = bytes[i];
      if (b < 0x20 || b == '"' || b == '\\' || b == '?') { // b < 0 is 0x80 and above
        return i;
      }
    }
    return n;
  }

  /** Whether any byte of the word is below 0x20, at or above 0x80, or one of {@code " \ ?}. */
  private static boolean special(long word) {
    return ((below(word, 0x20)
                | zero(word ^ (ONES * '"'))
                | zero(word ^ (ONES * '\\'))
                | zero(word ^ (ONES * '?'))
                | word)
            & HIGHS)
        != 0;
  }

  /** High bit set in some byte iff some byte of word is below n (n at most 0x80). */
  private static long below(long word, int n) {
    return (word - ONES * n) & ~word;
  }

  /** High bit set in some byte iff some byte of word is zero. */
  private static long zero(long word) {
    return (word - ONES) & ~word;
  }
}
