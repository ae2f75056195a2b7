package dev.mcpgate.core.hash;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.MathContext;
import java.math.RoundingMode;
import java.util.function.Predicate;

/**
 * Writes numbers in their canonical form: the exact decimal value with trailing zeros stripped, as
 * {@link BigDecimal#toString()} writes it; a {@code double} as the shortest decimal that reads back
 * as it, computed here so that every JDK gives the same bytes. Common values (integers, short
 * decimals) are written without allocating.
 */
final class CanonicalNumbers {
  private static final double[] POW10 = {
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
    1e17, 1e18, 1e19, 1e20, 1e21, 1e22
  };

  private static final long[] LONG_POW10 = new long[19];

  static {
    long p = 1;
    for (int i = 0; i < LONG_POW10.length; i++) {
      LONG_POW10[i] = p;
      p *= 10;
    }
  }

  private CanonicalNumbers() {}

  /**
   * @throws PathFailure for NaN, infinities and unsupported number types
   */
  static void write(Number n, CanonicalSink out) {
    if (n instanceof Integer || n instanceof Long || n instanceof Short || n instanceof Byte) {
      integer(n.longValue(), out);
    } else if (n instanceof Double d) {
      floating(d, out);
    } else if (n instanceof Float f) {
      if (f.isNaN() || f.isInfinite()) {
        throw new PathFailure("is " + f + "; NaN and infinities have no JSON form");
      }
      decimal(shortest(new BigDecimal(f.doubleValue()), x -> x.floatValue() == f), out);
    } else if (n instanceof BigInteger bi) {
      decimal(new BigDecimal(bi), out);
    } else if (n instanceof BigDecimal bd) {
      decimal(bd, out);
    } else {
      throw new PathFailure(
          "is a number of type "
              + n.getClass().getName()
              + ", which is not supported (use Integer, Long, BigInteger, BigDecimal, Double)");
    }
  }

  private static void integer(long l, CanonicalSink out) {
    if (l % 10 != 0) {
      digits(l, out);
    } else if (l == 0) {
      out.put('0');
    } else {
      trailingZeros(l, out);
    }
  }

  /**
   * Writes l, a multiple of 10 other than 0, as {@code BigDecimal.valueOf(l).stripTrailingZeros()}
   * prints it: a negative scale, so always the exponent form, {@code 1E+1}, {@code -1.25E+3}.
   */
  private static void trailingZeros(long l, CanonicalSink out) {
    int zeros = 0;
    while (l % 10 == 0) {
      l /= 10;
      zeros++;
    }
    if (l < 0) {
      out.put('-');
      l = -l;
    }
    int precision = precision(l);
    out.ensure(precision + 1);
    int start = out.len;
    digits(l, out);
    if (precision > 1) {
      // d.ddd: move all digits after the first one place right, for the point
      System.arraycopy(out.buf, start + 1, out.buf, start + 2, precision - 1);
      out.buf[start + 1] = '.';
      out.len++;
    }
    out.put('E');
    out.put('+');
    digits(zeros + precision - 1, out);
  }

  /** The number of decimal digits of l (l at least 0). */
  private static int precision(long l) {
    int precision = 1;
    while (precision < LONG_POW10.length && l >= LONG_POW10[precision]) {
      precision++;
    }
    return precision;
  }

  /** Writes l in decimal, without allocating. */
  private static void digits(long l, CanonicalSink out) {
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
    int n = precision(l);
    out.ensure(n);
    byte[] buf = out.buf;
    int end = out.len + n;
    for (int pos = end - 1; l > 0; pos--) {
      buf[pos] = (byte) ('0' + (l % 10));
      l /= 10;
    }
    out.len = end;
  }

  /**
   * Writes m * 10^-k (k > 0, m not a multiple of 10) as {@link BigDecimal#toString()} would, for
   * the values it writes in plain notation; returns false for the others.
   */
  private static boolean plainDecimal(long m, int k, CanonicalSink out) {
    long abs = Math.abs(m);
    int precision = precision(abs);
    if (k > 18 || precision - k - 1 < -6) {
      return false; // 10^k overflows a long, or BigDecimal switches to exponent notation
    }
    if (m < 0) {
      out.put('-');
    }
    if (precision <= k) {
      // 0.00ddd: k - precision zeros after the point
      out.ensure(2 + k - precision);
      out.buf[out.len++] = '0';
      out.buf[out.len++] = '.';
      for (int i = precision; i < k; i++) {
        out.buf[out.len++] = '0';
      }
      digits(abs, out);
    } else {
      // ddd.ddd: the digits from the last, the point before the last k
      out.ensure(precision + 1);
      byte[] buf = out.buf;
      int end = out.len + precision + 1;
      int pos = end - 1;
      for (int i = 0; i < k; i++) {
        buf[pos--] = (byte) ('0' + abs % 10);
        abs /= 10;
      }
      buf[pos--] = '.';
      for (; pos >= out.len; pos--) {
        buf[pos] = (byte) ('0' + abs % 10);
        abs /= 10;
      }
      out.len = end;
    }
    return true;
  }

  private static void floating(double d, CanonicalSink out) {
    if (Double.isNaN(d) || Double.isInfinite(d)) {
      throw new PathFailure("is " + d + "; NaN and infinities have no JSON form");
    }
    long whole = (long) d;
    if (whole == d && Math.abs(d) < 0x1p53) { // an integer (-0.0 too): exact as a long
      integer(whole, out);
      return;
    }
    // A decimal of at most 15 significant digits that reads back as d is the only such decimal
    // (DBL_DIG = 15), so it is the shortest, however it was found. First try m * 10^-k for
    // small k: m / 10^k in double arithmetic is correctly rounded (both exact), so the test is
    // exact. Then the JDK's own printing; then the exhaustive search.
    if (scaledDecimal(d, out)) {
      return;
    }
    BigDecimal printed = new BigDecimal(Double.toString(d));
    if (printed.precision() <= 15 || printed.stripTrailingZeros().precision() <= 15) {
      decimal(printed, out);
    } else {
      decimal(shortest(new BigDecimal(d), x -> x.doubleValue() == d), out);
    }
  }

  private static void decimal(BigDecimal d, CanonicalSink out) {
    if (d.signum() == 0) {
      out.put('0');
    } else {
      out.putAscii(d.stripTrailingZeros().toString());
    }
  }

  /**
   * Finds m, k with |m| below 10^15 and m not a multiple of 10, such that m * 10^-k reads back as
   * d, and writes it; returns false (having written nothing) if none is found quickly.
   */
  private static boolean scaledDecimal(double d, CanonicalSink out) {
    for (int k = 1; k < POW10.length; k++) {
      double scaled = d * POW10[k];
      if (Math.abs(scaled) >= 1e15) {
        return false;
      }
      long m = Math.round(scaled);
      if (m != 0 && (double) m / POW10[k] == d) {
        int scale = k;
        while (m % 10 == 0 && scale > 0) {
          m /= 10;
          scale--;
        }
        if (scale == 0) {
          return false;
        }
        if (!plainDecimal(m, scale, out)) {
          decimal(BigDecimal.valueOf(m, scale), out);
        }
        return true;
      }
    }
    return false;
  }

  /** The shortest decimal (fewest significant digits) that reads back as the same binary value. */
  private static BigDecimal shortest(BigDecimal exact, Predicate<BigDecimal> readsBack) {
    for (int digits = 1; digits <= 17; digits++) {
      BigDecimal candidate = exact.round(new MathContext(digits, RoundingMode.HALF_EVEN));
      if (readsBack.test(candidate)) {
        return candidate;
      }
    }
    return exact;
  }
}
