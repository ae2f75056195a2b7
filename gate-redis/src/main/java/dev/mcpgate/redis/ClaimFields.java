package dev.mcpgate.redis;

import dev.mcpgate.core.ClaimId;
import dev.mcpgate.core.LeaseToken;
import dev.mcpgate.core.spi.ClaimRecord;
import dev.mcpgate.core.spi.ClaimState;
import dev.mcpgate.core.spi.StoredResult;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;

/** A claim's hash as the scripts write and return it: its fields, and the values' bytes. */
final class ClaimFields {
  /** The fields h, s, t, a, c, l, e, d, k, r, in the order {@link #row} reads them. */
  static final byte[][] NAMES = {
    utf8("h"), utf8("s"), utf8("t"), utf8("a"), utf8("c"), utf8("l"), utf8("e"), utf8("d"),
    utf8("k"), utf8("r")
  };

  private ClaimFields() {}

  static byte[] ascii(long value) {
    return Long.toString(value).getBytes(StandardCharsets.US_ASCII);
  }

  static byte[] utf8(String value) {
    return value.getBytes(StandardCharsets.UTF_8);
  }

  static String text(Object value) {
    return value == null ? null : new String((byte[]) value, StandardCharsets.UTF_8);
  }

  static long number(Object value) {
    return Long.parseLong(text(value));
  }

  /** The row from the fields h, s, t, a, c, l, e, d, k, r, in that order. */
  static ClaimRecord row(ClaimId id, List<Object> f) {
    ClaimState state = ClaimState.valueOf(text(f.get(1)));
    StoredResult result = null;
    if (state == ClaimState.COMPLETED && f.get(8) != null) {
      byte[] body = f.get(9) == null ? new byte[0] : (byte[]) f.get(9);
      result = new StoredResult(StoredResult.Kind.valueOf(text(f.get(8))), body);
    }
    return new ClaimRecord(
        id,
        text(f.get(0)),
        state,
        new LeaseToken(text(f.get(2))),
        (int) number(f.get(3)),
        Instant.ofEpochMilli(number(f.get(4))),
        Instant.ofEpochMilli(number(f.get(5))),
        Instant.ofEpochMilli(number(f.get(6))),
        state == ClaimState.COMPLETED && f.get(7) != null
            ? Instant.ofEpochMilli(number(f.get(7)))
            : null,
        result);
  }
}
