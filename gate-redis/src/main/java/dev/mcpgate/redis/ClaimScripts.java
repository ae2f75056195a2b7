package dev.mcpgate.redis;

import static dev.mcpgate.redis.ClaimFields.ascii;
import static dev.mcpgate.redis.ClaimFields.number;
import static dev.mcpgate.redis.ClaimFields.row;
import static dev.mcpgate.redis.ClaimFields.text;
import static dev.mcpgate.redis.ClaimFields.utf8;

import dev.mcpgate.core.ClaimId;
import dev.mcpgate.core.LeaseToken;
import dev.mcpgate.core.ResultTooLargeException;
import dev.mcpgate.core.StoreUnavailableException;
import dev.mcpgate.core.spi.ClaimAttempt;
import dev.mcpgate.core.spi.ClaimRecord;
import dev.mcpgate.core.spi.ClaimRequest;
import dev.mcpgate.core.spi.ExtendedLeases;
import dev.mcpgate.core.spi.HeldLease;
import dev.mcpgate.core.spi.StoredResult;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisException;
import io.lettuce.core.ScriptOutputType;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The claim's scripts ({@link Scripts}), each run on the one key of a claim, on the server's clock:
 * the claim, the token-checked writes, the renewals' pipeline of extensions, and the purge of one
 * expired key.
 */
final class ClaimScripts {
  private final LazyLink link;
  private final RenewalPipeline renewals;
  private final ClaimKeys keys;
  private final byte[] graceMs;
  private final Duration resendWithin;
  private final ScriptRunner.Script claim = ScriptRunner.Script.of(Scripts.CLAIM);
  private final ScriptRunner.Script complete = ScriptRunner.Script.of(Scripts.COMPLETE);
  private final ScriptRunner.Script release = ScriptRunner.Script.of(Scripts.RELEASE);
  private final ScriptRunner.Script extend = ScriptRunner.Script.of(Scripts.EXTEND);
  private final ScriptRunner.Script markUnknown = ScriptRunner.Script.of(Scripts.MARK_UNKNOWN);
  private final ScriptRunner.Script purge = ScriptRunner.Script.of(Scripts.PURGE);

  /**
   * @param resendWithin how long a claim whose reply was lost waits for its connection to send the
   *     claim again ({@link #claim})
   */
  ClaimScripts(
      LazyLink link,
      RenewalPipeline renewals,
      ClaimKeys keys,
      Duration grace,
      Duration resendWithin) {
    this.link = link;
    this.renewals = renewals;
    this.keys = keys;
    this.graceMs = ascii(grace.toMillis());
    this.resendWithin = resendWithin;
  }

  private boolean held(String what, ScriptRunner.Script script, ClaimId id, byte[]... args) {
    Long changed =
        link.call(
            what + " " + id,
            l -> l.scripts().run(script, ScriptOutputType.INTEGER, keys.of(id), args));
    return changed != null && changed == 1L;
  }

  /**
   * Claims {@code r}'s key. A claim whose reply was lost after it was sent (its connection closed,
   * or it timed out) may have run: its row would then hold the key with this token, unrenewed, and
   * a retry would be refused as in progress and later told of a takeover, though nothing ran. So it
   * is sent once more, waiting at most {@code resendWithin} for a closed connection to be made
   * again: the script answers a second run with the same token as acquired (a live row of its own
   * token, with a lease from now), and a first run that did not happen as a first run would have
   * been answered. When that fails too, the first failure is thrown (the second suppressed).
   */
  ClaimAttempt claim(ClaimRequest r) {
    try {
      return claimOnce(r);
    } catch (StoreUnavailableException lost) {
      if (!(lost.getCause() instanceof RedisException e) || ScriptRunner.notSent(e)) {
        throw lost; // never sent (Redis is down): nothing ran, and it fails at once
      }
      return claimAgain(r, lost);
    }
  }

  private ClaimAttempt claimAgain(ClaimRequest r, StoreUnavailableException lost) {
    long deadline = System.nanoTime() + resendWithin.toNanos();
    while (true) {
      try {
        return claimOnce(r);
      } catch (StoreUnavailableException again) {
        boolean reconnecting =
            again.getCause() instanceof RedisException e && ScriptRunner.notSent(e);
        if (!reconnecting || System.nanoTime() - deadline >= 0 || !pausedBeforeResend()) {
          lost.addSuppressed(again);
          throw lost;
        }
      }
    }
  }

  /**
   * @return false when the thread was interrupted (its flag set again)
   */
  private static boolean pausedBeforeResend() {
    try {
      Thread.sleep(RESEND_PAUSE_MS);
      return true;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  private static final long RESEND_PAUSE_MS = 10;

  private ClaimAttempt claimOnce(ClaimRequest r) {
    List<Object> reply =
        link.call(
            "claim " + r.id(),
            l ->
                l.scripts()
                    .run(
                        claim,
                        ScriptOutputType.MULTI,
                        keys.of(r.id()),
                        utf8(r.argsHash()),
                        utf8(r.token().value()),
                        ascii(r.lease().toMillis()),
                        ascii(r.retention().toMillis()),
                        graceMs,
                        r.replacing() == null ? new byte[0] : utf8(r.replacing().value())));
    Instant now = Instant.ofEpochMilli(number(reply.get(1)));
    String decision = text(reply.get(0));
    if ("N".equals(decision)) {
      return new ClaimAttempt.Absent(now);
    }
    ClaimRecord row = row(r.id(), reply.subList(2, reply.size()));
    return "A".equals(decision)
        ? new ClaimAttempt.Acquired(row, now)
        : new ClaimAttempt.Existing(row, now);
  }

  /**
   * @throws ResultTooLargeException when Redis refused the result as an argument larger than it
   *     takes ({@code proto-max-bulk-len}: it answers a protocol error before it runs anything)
   */
  boolean complete(ClaimId id, LeaseToken token, StoredResult result, Duration retention) {
    long size = result.body().length;
    if (size > SMALLEST_BULK_LIMIT) {
      long limit = bulkLimit();
      if (size > limit) {
        throw tooLarge(id, size, limit);
      }
    }
    try {
      return held(
          "complete",
          complete,
          id,
          utf8(token.value()),
          ascii(retention.toMillis()),
          utf8(result.kind().name()),
          result.body(),
          graceMs);
    } catch (StoreUnavailableException e) {
      if (e.getCause() instanceof RedisCommandExecutionException refused
          && refused.getMessage() != null
          && refused.getMessage().contains(TOO_LONG)) {
        throw tooLarge(id, size, size - 1); // its limit is below the size, is all that is known
      }
      throw e;
    }
  }

  private static ResultTooLargeException tooLarge(ClaimId id, long size, long limit) {
    return new ResultTooLargeException(
        "the result of "
            + id
            + " is "
            + size
            + " bytes, more than this Redis takes in one argument (its proto-max-bulk-len, "
            + limit
            + " bytes); nothing was written",
        size,
        limit);
  }

  /**
   * The server's {@code proto-max-bulk-len}, read once (a result over it is refused with a protocol
   * error that also closes the connection, failing every command in flight on it, so it is never
   * sent); Redis's default when the server does not say (a managed Redis may refuse {@code CONFIG
   * GET}).
   */
  private long bulkLimit() {
    long known = bulkLimit;
    if (known > 0) {
      return known;
    }
    try {
      String value =
          link.call("read proto-max-bulk-len", l -> l.configGet(BULK_LIMIT)).get(BULK_LIMIT);
      if (value != null) {
        bulkLimit = Long.parseLong(value.strip());
        return bulkLimit;
      }
    } catch (StoreUnavailableException | NumberFormatException notSaid) {
      // Redis's default, without remembering it
    }
    return DEFAULT_BULK_LIMIT;
  }

  private static final String BULK_LIMIT = "proto-max-bulk-len";

  /** The lowest {@code proto-max-bulk-len} Redis accepts: results up to it need no check. */
  private static final long SMALLEST_BULK_LIMIT = 1024 * 1024;

  private static final long DEFAULT_BULK_LIMIT = 512L * 1024 * 1024;

  private volatile long bulkLimit; // 0 until read

  /** What Redis answers, before it runs anything, to an argument over its proto-max-bulk-len. */
  private static final String TOO_LONG = "Protocol error: invalid bulk length";

  boolean release(ClaimId id, LeaseToken token) {
    return held("release", release, id, utf8(token.value()));
  }

  boolean extend(ClaimId id, LeaseToken token, Duration lease) {
    return held(
        "extend the lease of", extend, id, utf8(token.value()), ascii(lease.toMillis()), graceMs);
  }

  /** See {@link RedisIdempotencyStore#extendLeases}; {@code leases} is not empty. */
  ExtendedLeases extendAll(List<HeldLease> leases, Duration lease, Duration within) {
    byte[] leaseMs = ascii(lease.toMillis());
    List<byte[]> claimKeys = new ArrayList<>(leases.size());
    List<byte[][]> args = new ArrayList<>(leases.size());
    for (HeldLease held : leases) {
      claimKeys.add(keys.of(held.id()));
      args.add(new byte[][] {utf8(held.token().value()), leaseMs, graceMs});
    }
    Long[] replies;
    try {
      replies = renewals.run(extend, claimKeys, args, within);
    } catch (RedisException e) {
      throw new StoreUnavailableException(
          "could not extend " + leases.size() + " leases in Redis: " + e.getMessage(), e);
    }
    Set<LeaseToken> extended = new HashSet<>();
    Set<LeaseToken> undecided = new HashSet<>();
    for (int i = 0; i < leases.size(); i++) {
      Long changed = replies[i];
      if (changed == null) {
        undecided.add(leases.get(i).token());
      } else if (changed == 1L) {
        extended.add(leases.get(i).token());
      }
    }
    return new ExtendedLeases(extended, undecided);
  }

  boolean markUnknown(ClaimId id, LeaseToken token, Duration fence) {
    return held(
        "mark unknown", markUnknown, id, utf8(token.value()), ascii(fence.toMillis()), graceMs);
  }

  /** Deletes {@code key} if it is still expired; @return true when it was deleted */
  boolean purge(byte[] key) {
    Long gone = link.call("purge", l -> l.scripts().run(purge, ScriptOutputType.INTEGER, key));
    return gone != null && gone == 1L;
  }
}
