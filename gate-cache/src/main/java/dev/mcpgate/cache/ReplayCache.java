package dev.mcpgate.cache;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import dev.mcpgate.core.ClaimId;
import dev.mcpgate.core.LeaseToken;
import dev.mcpgate.core.spi.ClaimAttempt;
import dev.mcpgate.core.spi.ClaimRecord;
import dev.mcpgate.core.spi.ClaimRequest;
import dev.mcpgate.core.spi.ClaimState;
import dev.mcpgate.core.spi.ForwardingIdempotencyStore;
import dev.mcpgate.core.spi.IdempotencyStore;
import dev.mcpgate.core.spi.StoredResult;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.Objects;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;

/**
 * An opt-in near-cache for replays: a store that keeps the {@code COMPLETED} rows its store
 * returned, in process and bounded by entries and by bytes, and answers a claim of such a key
 * without a round trip. Wrap the store the gate uses:
 *
 * <pre>{@code
 * IdempotencyStore store = ReplayCache.wrap(jdbcStore, 10_000);
 * IdempotencyGate gate = IdempotencyGate.builder(store).build();
 * }</pre>
 *
 * <h2>What it answers, and why that is still the store's answer</h2>
 *
 * A claim of a key whose completed row is cached is answered with {@link
 * ClaimAttempt.Existing}{@code (row, estimated store now)}, the row exactly as the store returned
 * it. The gate decides from it as from the store's own answer: the same argument hash replays the
 * stored result; another hash is refused as a conflict, because the cached row carries the
 * <em>stored</em> hash. Every other claim, and every other call, goes to the store. Only rows the
 * store returned as {@code COMPLETED} (from a claim's {@code Existing}) are cached; {@code
 * IN_PROGRESS} and {@code UNKNOWN} rows never are. Rows are not filled from a successful {@code
 * complete}: the store does not say the completion time and expiry it wrote, and a replay reports
 * them, so the first replay of a key reads the row from the store and later ones hit.
 *
 * <p>This is exactly as true as the store's answer because <b>a completed row does not change until
 * it expires</b>, in every store, by the SPI's rules:
 *
 * <ul>
 *   <li>a claim never writes over a {@code COMPLETED} row before its {@code expiresAt} ({@link
 *       dev.mcpgate.core.spi.Takeover#allowed}: only no row, an expired row, or an {@code
 *       IN_PROGRESS} row whose lease ran out may be taken);
 *   <li>{@code complete} writes only a row that is not completed; {@code release} deletes only a
 *       row that is not completed; {@code markUnknown} and {@code extendLease} touch only {@code
 *       IN_PROGRESS} rows; {@code purgeExpired} deletes only expired rows;
 *   <li>so the only change a completed row can see is to expire, after which a fresh claim may take
 *       the key, with other arguments too.
 * </ul>
 *
 * Hence an entry is correct for as long as its row has not expired, and it is dropped
 * <em>before</em> that moment by the store's clock (below). The same argument covers several
 * processes (several gates, several caches) on one store: a row cached in process A cannot be
 * changed by process B before it expires, so A's answer stays the store's answer; once it may have
 * expired, A asks the store, and sees whatever B wrote since.
 *
 * <h2>The store's clock</h2>
 *
 * Expiry is decided by the store's clock ({@link IdempotencyStore#now()}), which may be hours away
 * from this process's. The cache measures the store's clock against the monotonic clock ({@link
 * System#nanoTime()}) at every claim that reaches the store. The offset of one answer is {@code
 * storeNow - sent + 1 ms}, where {@code sent} is the monotonic time just before the claim was sent:
 * the store read its clock after that, and a store keeps whole milliseconds (its clock may read up
 * to one behind), so this is an upper bound of the store's lead (the round trip is the
 * measurement's uncertainty, and it is counted on the safe side). The cache keeps the largest
 * offset seen, so the estimate {@code nanoTime() + offset} never runs behind the store's clock,
 * whatever the order answers arrive in. It keeps it until {@link #invalidateAll()}, not for a
 * while: a store clock seen once, such as a primary's before a fail-over to a server behind it, may
 * be the store's clock again after a fail-back, and entries cached meanwhile must not outlive their
 * rows there. The price: after a step forward that came back, every entry is dropped that much
 * early (so none is used when the step is longer than the rows' retention) until {@code
 * invalidateAll()}. A slow round trip costs the same: a claim that waited for a pooled connection,
 * or a store's first call (which may create its table), counts its wait as the store's lead, and
 * with a retention not much longer than that wait no entry is used until {@code invalidateAll()}.
 *
 * <p>The monotonic clock stops while the host is suspended (a laptop's lid; a paused virtual
 * machine whose wall clock is set right on resume); the store's does not. So the cache also reads
 * this process's wall clock, only to compare intervals: the time the wall clock counted since the
 * last measurement beyond what the monotonic clock counted is added to the estimate and to the
 * measurement's age. A wall clock set back only makes this count nothing; one set forward only
 * sends claims to the store. An entry is used only while {@code estimate + margin < expiresAt};
 * Caffeine also drops it then, to free the memory.
 *
 * <p>Two things move a store's clock against ours: drift (the clocks run at slightly different
 * rates) and steps (an NTP correction, a fail-over to a server whose clock differs). To bound both,
 * a cached answer is given only while the last measurement is younger than {@linkplain
 * Builder#clockCheck the clock check} (1 s by default); after that the next claim goes to the store
 * and measures again. Drift over one check period is far below the margin. A step forward of the
 * store's clock larger than the {@linkplain Builder#margin margin} (1 s by default) can make an
 * entry outlive its row by at most one check period, and the row must be that close to its expiry
 * too; a step backward only drops entries early. Choose a larger margin if the store's clock can
 * step by more.
 *
 * <h2>What does not go through the cache</h2>
 *
 * {@code complete}, {@code release}, {@code extendLease(s)}, {@code markUnknown}, {@code find}
 * (operators read the store), {@code purgeExpired} and {@code now} all go to the store. A claim
 * that reaches the store and finds anything but a completed row, or takes the key, removes the
 * key's entry; so does a successful {@code complete}. Single-commit mode claims inside the store's
 * transaction ({@link dev.mcpgate.core.spi.ClaimingScope}), not through this class, so it neither
 * reads nor fills the cache.
 *
 * <h2>How much it holds</h2>
 *
 * At most {@linkplain Builder#maxEntries 10,000 entries} and {@linkplain Builder#maxBytes 64 MiB}
 * by default, whichever binds first. An entry weighs its result's bytes, two bytes per character of
 * its tenant, tool, key and argument hash, and {@value #ENTRY_OVERHEAD_BYTES} bytes for its
 * objects; but never less than {@code maxBytes / maxEntries}, which is how the entry bound is kept
 * within the one weight Caffeine bounds by. So 64 MiB holds 10,000 small results, or some 250 of
 * 256 KiB; a result larger than the whole budget is not kept. (Without a byte bound, 10,000 results
 * of 256 KiB were about 2.5 GiB.)
 *
 * <p>The budget is shared by every tenant, with no per-tenant share: Caffeine evicts by frequency
 * and recency (W-TinyLFU) across all entries, so one tenant's many or large results can evict
 * another tenant's. Eviction only ever costs a round trip: the evicted key's next claim goes to the
 * store, which answers it as before. Give a cache of its own (a wrapper per store, or per group of
 * tools) to tenants whose hit rate must not depend on others.
 *
 * <p>Every hit of a key hands out the row the store returned, its result's bytes included: by the
 * SPI's rule no one changes a {@link StoredResult}'s bytes ({@link
 * dev.mcpgate.core.ResultMapper#bytes()} hands the caller a copy). The cache holds no thread and no
 * connection, and has nothing to close: close the store you wrapped, as before, when nothing else
 * uses it.
 *
 * <p>Thread-safe. The cache is per instance: wrap a store once and share the wrapper.
 */
public final class ReplayCache extends ForwardingIdempotencyStore {

  /**
   * The default margin before a row's expiry, on the store's clock, at which entries are dropped.
   */
  public static final Duration DEFAULT_MARGIN = Duration.ofSeconds(1);

  /** How old the last measurement of the store's clock may be for a cached answer, by default. */
  public static final Duration DEFAULT_CLOCK_CHECK = Duration.ofSeconds(1);

  /** The most entries kept, by default. */
  public static final long DEFAULT_MAX_ENTRIES = 10_000;

  /** The most bytes the entries may weigh, by default: 64 MiB. */
  public static final long DEFAULT_MAX_BYTES = 64L * 1024 * 1024;

  /** What an entry weighs besides its result and texts: its objects' headers and fields. */
  static final int ENTRY_OVERHEAD_BYTES = 600;

  private final Cache<ClaimId, Entry> entries;
  private final StoreClock clock;

  private final LongAdder hits = new LongAdder();
  private final LongAdder misses = new LongAdder();

  /**
   * A completed row and the monotonic time until which it may be used.
   *
   * @param row the row as the store returned it
   * @param expiresAtNanos the row's expiry on the store's clock, in epoch nanos
   */
  private record Entry(ClaimRecord row, long expiresAtNanos) {}

  private ReplayCache(Builder b) {
    super(b.store);
    this.clock = new StoreClock(b.nanoTime, b.wallClock, b.margin, b.clockCheck);
    if (b.maxBytes < b.maxEntries) {
      throw new IllegalArgumentException(
          "maxBytes ("
              + b.maxBytes
              + ") must be at least maxEntries ("
              + b.maxEntries
              + "): an entry weighs at least one byte");
    }
    // every entry weighs at least maxBytes / maxEntries (rounded up): no more than maxEntries fit
    long floor = (b.maxBytes + b.maxEntries - 1) / b.maxEntries;
    if (floor > Integer.MAX_VALUE) {
      throw new IllegalArgumentException(
          "maxBytes / maxEntries must be at most "
              + Integer.MAX_VALUE
              + " (Caffeine's largest weight), was "
              + floor);
    }
    this.entries =
        Caffeine.newBuilder()
            .maximumWeight(b.maxBytes)
            .<ClaimId, Entry>weigher(
                (id, entry) ->
                    (int) Math.min(Integer.MAX_VALUE, Math.max(floor, bytes(entry.row()))))
            .executor(Runnable::run)
            .ticker(clock::nanoTime)
            .expireAfter(clock.<ClaimId, Entry>expiry(Entry::expiresAtNanos))
            .build();
  }

  /**
   * Wraps a store with a replay cache of at most {@code maxEntries} completed rows (and {@link
   * #DEFAULT_MAX_BYTES} bytes), with the default margin and clock check.
   *
   * @param store the store every miss and every other call goes to
   * @param maxEntries the most completed rows kept, at least 1
   * @return the caching store
   */
  public static ReplayCache wrap(IdempotencyStore store, long maxEntries) {
    return builder(store).maxEntries(maxEntries).build();
  }

  /**
   * @param store the store every miss and every other call goes to
   * @return a builder ({@link #DEFAULT_MAX_ENTRIES} entries, {@link #DEFAULT_MAX_BYTES} bytes,
   *     {@link #DEFAULT_MARGIN}, {@link #DEFAULT_CLOCK_CHECK})
   */
  public static Builder builder(IdempotencyStore store) {
    return new Builder(Objects.requireNonNull(store, "store"));
  }

  @Override
  public ClaimAttempt claim(ClaimRequest request) {
    Entry entry = entries.getIfPresent(request.id());
    Instant storeNow = entry == null ? null : clock.cachedAnswerAt(entry.expiresAtNanos);
    if (storeNow != null) {
      hits.increment();
      return new ClaimAttempt.Existing(entry.row, storeNow);
    }
    misses.increment();
    long sent = clock.nanoTime();
    long sentWallMillis = clock.wallMillis();
    ClaimAttempt attempt = delegate().claim(request);
    clock.measured(attempt.storeNow(), sent, sentWallMillis);
    ClaimRecord row = attempt.record();
    if (attempt instanceof ClaimAttempt.Existing && row.state() == ClaimState.COMPLETED) {
      Entry fresh = new Entry(row, StoreClock.epochNanos(row.expiresAt()));
      if (clock.nanoTime() < clock.usableUntil(fresh.expiresAtNanos)) {
        // keyed by the row's own id, so that the key and the entry share their texts
        entries.put(fresh.row.id(), fresh);
      } else if (entry != null) {
        entries.invalidate(request.id());
      }
    } else if (entry != null || attempt instanceof ClaimAttempt.Acquired) {
      entries.invalidate(request.id());
    }
    return attempt;
  }

  @Override
  public boolean complete(ClaimId id, LeaseToken token, StoredResult result, Duration retention) {
    boolean completed = delegate().complete(id, token, result, retention);
    if (completed) {
      entries.invalidate(id); // a new attempt held the key: any entry for it was for an older row
    }
    return completed;
  }

  /**
   * @return what a cached row holds: its result's bytes, two per character of its texts, and
   *     {@value #ENTRY_OVERHEAD_BYTES} for its objects
   */
  static long bytes(ClaimRecord row) {
    ClaimId id = row.id();
    long chars =
        (long) id.tenant().length()
            + id.tool().length()
            + id.key().length()
            + row.argsHash().length();
    return ENTRY_OVERHEAD_BYTES
        + 2 * chars
        + (row.result() == null ? 0 : row.result().body().length);
  }

  /**
   * Drops every entry and forgets what the cache measured of the store's clock: the next claim of
   * each key goes to the store, and the first measures the clock afresh. Use it once a step forward
   * of the store's clock has come back for good (see "The store's clock").
   */
  public void invalidateAll() {
    entries.invalidateAll();
    clock.forget();
  }

  /**
   * @return hits, misses, the entries held now (an estimate, as Caffeine counts them) and their
   *     weight
   */
  public Stats stats() {
    long weight = entries.policy().eviction().orElseThrow().weightedSize().orElse(0);
    return new Stats(hits.sum(), misses.sum(), entries.estimatedSize(), weight);
  }

  /**
   * @param hits claims answered from the cache
   * @param misses claims that went to the store
   * @param entries completed rows held
   * @param bytes what they weigh (see {@link Builder#maxBytes}), at most the budget
   */
  public record Stats(long hits, long misses, long entries, long bytes) {}

  /** Settings of a {@link ReplayCache}. */
  public static final class Builder {
    private final IdempotencyStore store;
    private long maxEntries = DEFAULT_MAX_ENTRIES;
    private long maxBytes = DEFAULT_MAX_BYTES;
    private Duration margin = DEFAULT_MARGIN;
    private Duration clockCheck = DEFAULT_CLOCK_CHECK;
    private LongSupplier nanoTime = System::nanoTime;
    private InstantSource wallClock = InstantSource.system();

    private Builder(IdempotencyStore store) {
      this.store = store;
    }

    /**
     * @param maxEntries the most completed rows kept (least recently and frequently used go first),
     *     at least 1
     * @return this builder
     */
    public Builder maxEntries(long maxEntries) {
      if (maxEntries < 1) {
        throw new IllegalArgumentException("maxEntries must be at least 1, was " + maxEntries);
      }
      this.maxEntries = maxEntries;
      return this;
    }

    /**
     * @param maxBytes the most bytes the entries kept may weigh (a result's bytes, two per
     *     character of tenant, tool, key and argument hash, {@value
     *     ReplayCache#ENTRY_OVERHEAD_BYTES} for the objects, and at least {@code maxBytes /
     *     maxEntries} each), shared by all tenants; 64 MiB by default, at least {@code maxEntries}
     * @return this builder
     */
    public Builder maxBytes(long maxBytes) {
      if (maxBytes < 1) {
        throw new IllegalArgumentException("maxBytes must be at least 1, was " + maxBytes);
      }
      this.maxBytes = maxBytes;
      return this;
    }

    /**
     * @param margin how long before its row's expiry (on the store's clock, as estimated) an entry
     *     is dropped; covers a step of the store's clock. Zero or more.
     * @return this builder
     */
    public Builder margin(Duration margin) {
      if (margin.isNegative()) {
        throw new IllegalArgumentException("margin must not be negative, was " + margin);
      }
      this.margin = margin;
      return this;
    }

    /**
     * @param clockCheck how old the last measurement of the store's clock may be for a claim to be
     *     answered from the cache; after it, the next claim goes to the store. Positive.
     * @return this builder
     */
    public Builder clockCheck(Duration clockCheck) {
      if (clockCheck.isNegative() || clockCheck.isZero()) {
        throw new IllegalArgumentException("clockCheck must be positive, was " + clockCheck);
      }
      this.clockCheck = clockCheck;
      return this;
    }

    /**
     * The monotonic clock the cache measures the store's clock against; for tests.
     *
     * @param nanoTime like {@link System#nanoTime()} (the default)
     * @return this builder
     */
    public Builder nanoTime(LongSupplier nanoTime) {
      this.nanoTime = Objects.requireNonNull(nanoTime, "nanoTime");
      return this;
    }

    /**
     * The wall clock the cache compares the monotonic clock with, to notice time the monotonic
     * clock did not count (a suspended host); for tests, with {@link #nanoTime}.
     *
     * @param wallClock like {@link InstantSource#system()} (the default)
     * @return this builder
     */
    public Builder wallClock(InstantSource wallClock) {
      this.wallClock = Objects.requireNonNull(wallClock, "wallClock");
      return this;
    }

    /**
     * @return the caching store
     */
    public ReplayCache build() {
      return new ReplayCache(this);
    }
  }
}
