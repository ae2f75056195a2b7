package dev.mcpgate.core.hash;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.MathContext;
import java.math.RoundingMode;
import java.util.function.Predicate;

/**
 * Writes numbers in their canonical form: the exact decimal value with trailing zeros stripped,
 * as {@link BigDecimal#toString()} writes it; a {@code double} as the shortest decimal that reads
 * back as it, computed here so that every JDK gives the same bytes. Common values (integers, short
 * decimals) are written without allocating.
 */
final class CanonicalNumbers {
  private static final double[] POW10 = {
      1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
      1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

  private CanonicalNumbers() {}

  /** @throws PathFailure for NaN, infinities and unsupported number types */
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
      throw new PathFailure("is a number of type " + n.getClass().getName()
          + ", which is not supported (use Integer, Long, BigInteger, BigDecimal, Double)");
    }
  }

  private static void integer(long l, CanonicalSink out) {
    if (l % 10 != 0) {
      digits(l, out);
    } else {
      decimal(BigDecimal.valueOf(l), out);
    }
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
  private static boolean plainDecimal(long m, int k, CanonicalSink out) {
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
    digits(abs / scale, out);
    out.put('.');
    long fraction = abs % scale;
    for (long f = scale / 10; f > fraction && f > 1; f /= 10) {
      out.put('0');
    }
    digits(fraction, out);
    return true;
  }

  private static void floating(double d, CanonicalSink out) {
    if (Double.isNaN(d) || Double.isInfinite(d)) {
      throw new PathFailure("is " + d + "; NaN and infinities have no JSON form");
    }
    if (d == Math.rint(d) && Math.abs(d) < 0x1p53) {
      integer((long) d, out);
      return;
    }
    // A decimal of at most 15 significant digits that reads back as d is the only such decimal
    // (DBL_DIG = 15), so it is the shortest, however it was found. First try m * 10^-k for
    // small k: m / 10^k in double arithmetic is correctly rounded (both exact), so the test is
    // exact. Then the JDK's own printing; then the exhaustive search.
    long[] scaled = scaledDecimal(d);
    if (scaled != null) {
      if (!plainDecimal(scaled[0], (int) scaled[1], out)) {
        decimal(BigDecimal.valueOf(scaled[0], (int) scaled[1]), out);
      }
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
