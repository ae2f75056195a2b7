package dev.mcpgate.store.tck;

import dev.mcpgate.core.ClaimId;
import dev.mcpgate.core.LeaseToken;
import dev.mcpgate.core.ToolCall;
import dev.mcpgate.core.spi.ClaimAttempt;
import dev.mcpgate.core.spi.ClaimRequest;
import dev.mcpgate.core.spi.IdempotencyStore;
import dev.mcpgate.core.spi.StoredResult;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;

/**
 * The behaviour every {@link IdempotencyStore} promises, as one JUnit 5 suite that each store runs
 * by subclassing it in its own tests. The stores of MCP Gate run it as it stands; so can a store
 * written elsewhere:
 *
 * <pre>
 * class MyStoreContractTest extends IdempotencyStoreContract {
 *   private final MutableClock clock = new MutableClock(Instant.parse("2030-01-01T00:00:00Z"));
 *
 *   &#64;Override
 *   protected IdempotencyStore createStore() {
 *     return new MyStore(clock);
 *   }
 *
 *   &#64;Override
 *   protected void elapse(Duration d) {
 *     clock.advance(d); // without this override, the suite sleeps
 *   }
 * }
 * </pre>
 *
 * <p>The suite checks the outcome table (fresh claim, replay, in flight, conflict in every state),
 * the one takeover rule, fencing by the lease token, lease extension and release, the unknown
 * outcome, expiry and purge on the store's clock, tenant and tool isolation, results byte for byte
 * up to the size limit, and threads racing on one key and over many keys. Every guard of the
 * store's conditional writes has a test here that fails when the guard is removed: the lease token
 * on complete, release and extend; the state on release and takeover; the argument hash and the
 * lease time on takeover; the expiry on a fresh claim.
 *
 * <p>Each test works under its own random tenant ({@link #tenant}), so a shared database needs no
 * cleaning between tests. {@link #createStore()} is called before each test and {@link
 * #closeStore()} after it; a subclass may add tests of its own, which see the same {@link #store}.
 *
 * <p>The tests come in JUnit 5 {@link Nested} groups, by behaviour: {@link Outcomes}, {@link
 * TakeoverRule}, {@link Replacing}, {@link Fencing}, {@link Leases}, {@link Expiry}, {@link
 * IdentityAndResults} and {@link Concurrency}. JUnit runs each group's tests on a new instance of
 * the subclass, with its {@code @BeforeEach} and {@code @AfterEach} methods (so {@link
 * #createStore()} and {@link #closeStore()}) around each test, and reports each group under its own
 * name.
 */
public abstract class IdempotencyStoreContract {

  /** A lease long enough that it never runs out by accident during a test. */
  protected static final Duration LONG = Duration.ofMinutes(10);

  /**
   * The deadline the suite gives one renewal call ({@code extendLeases}): generous, so that a store
   * on a slow test machine settles every lease in it.
   */
  protected static final Duration RENEWAL_DEADLINE = Duration.ofSeconds(10);

  /** The store under test: what {@link #createStore()} returned for the current test. */
  protected IdempotencyStore store;

  /** The current test's tenant, random per test; {@link #id} and {@link #call} use it. */
  protected String tenant;

  /** For subclasses. */
  protected IdempotencyStoreContract() {}

  /**
   * Builds the store under test, on the backend under test; called before each test. The store may
   * be shared by tests or new for each: the tests keep apart by tenant.
   *
   * @return the store the current test runs on
   * @throws Exception if the store cannot be built; the test fails
   */
  protected abstract IdempotencyStore createStore() throws Exception;

  /**
   * Lets {@code d} pass on the store's clock. The default sleeps a little longer than {@code d}
   * (for stores on a real server's clock); a store on an injected clock advances it instead, for
   * example a {@link MutableClock}.
   *
   * @param d how much time passes
   * @throws InterruptedException if the sleep is interrupted
   */
  protected void elapse(Duration d) throws InterruptedException {
    Thread.sleep(d.toMillis() + 30);
  }

  /**
   * The lease that tests let run out with {@link #elapse}. The default, 300 ms, suits a real
   * server; a store whose clock is coarse (or slow to agree across nodes) lengthens it.
   *
   * @return the short lease
   */
  protected Duration shortLease() {
    return Duration.ofMillis(300);
  }

  /**
   * Called after each test, to close what {@link #createStore()} opened. The default does nothing.
   *
   * @throws Exception if closing fails; the test fails
   */
  protected void closeStore() throws Exception {}

  /**
   * The largest result the suite stores and reads back. The default is 256 KiB; a store whose
   * backend caps a row's size lower lowers it.
   *
   * @return the size, in bytes
   */
  protected int maxResultBytesToTest() {
    return 256 * 1024;
  }

  /**
   * How many threads race on one key, through gates on the one {@link #store}. The default is 32;
   * raise it for a backend where races are rare.
   *
   * @return the number of threads
   */
  protected int threadsOnOneKey() {
    return 32;
  }

  /**
   * The size of the race over many keys: each thread calls every key once, in its own order. The
   * default is 16 threads over 500 keys.
   *
   * @return {threads, keys}
   */
  protected int[] threadsAndKeys() {
    return new int[] {16, 500};
  }

  @BeforeEach
  void setUpStore() throws Exception {
    store = createStore();
    tenant = "t-" + UUID.randomUUID();
  }

  @AfterEach
  void tearDownStore() throws Exception {
    closeStore();
  }

  // ------------------------------------------------------------------ helpers

  /**
   * @param key an idempotency key
   * @return the id of {@code key} for the tool {@code refund_order}, under the current tenant
   */
  protected ClaimId id(String key) {
    return new ClaimId(tenant, "refund_order", key);
  }

  /**
   * Claims on the store directly (no gate), with a retention of six {@link #LONG} leases.
   *
   * @param id what to claim
   * @param hash the argument hash, any string such as {@code "v1:a"}
   * @param token the attempt's lease token
   * @param lease how long the lease lasts
   * @return what the store answered
   */
  protected ClaimAttempt claim(ClaimId id, String hash, LeaseToken token, Duration lease) {
    return store.claim(new ClaimRequest(id, hash, token, lease, LONG.multipliedBy(6)));
  }

  /**
   * @param text a result
   * @return {@code text} as a stored value (not a failure), in UTF-8
   */
  protected static StoredResult value(String text) {
    return new StoredResult(
        StoredResult.Kind.VALUE, text.getBytes(java.nio.charset.StandardCharsets.UTF_8));
  }

  /**
   * @param key an idempotency key
   * @param args the call's arguments
   * @return a call of the tool {@code refund_order} under the current tenant
   */
  protected ToolCall call(String key, Map<String, ?> args) {
    return ToolCall.of(tenant, "refund_order", key, args);
  }

  // ------------------------------------------------------------------ the groups

  /**
   * The outcome table: a fresh claim, a replay that runs nothing, a conflict in every state, a call
   * in flight.
   */
  @Nested
  class Outcomes extends OutcomeTableTests {
    Outcomes() {
      super(IdempotencyStoreContract.this);
    }
  }

  /**
   * The one takeover rule: which rows a new attempt takes over, with which token and attempt
   * number, and which it leaves alone.
   */
  @Nested
  class TakeoverRule extends TakeoverTests {
    TakeoverRule() {
      super(IdempotencyStoreContract.this);
    }
  }

  /**
   * A claim replacing a token (an operator's settlement): written only over the row that holds it,
   * never where there is no row, nor over a row claimed since.
   */
  @Nested
  class Replacing extends ReplacingTests {
    Replacing() {
      super(IdempotencyStoreContract.this);
    }
  }

  /**
   * Fencing by the lease token and the state: a stale attempt can neither complete, release, extend
   * nor mark unknown, a completed row is final, and an unknown outcome stays fenced until its fence
   * expires.
   */
  @Nested
  class Fencing extends FencingTests {
    Fencing() {
      super(IdempotencyStoreContract.this);
    }
  }

  /**
   * Lease extension, renewal of many leases at once, and release: an extended lease is not taken
   * over, a renewal says which leases are still held, a released key is free for a fresh attempt.
   */
  @Nested
  class Leases extends LeaseTests {
    Leases() {
      super(IdempotencyStoreContract.this);
    }
  }

  /**
   * Time, expiry and purge, all on the store's clock: the row's times, purging only what expired
   * (also while other threads claim), and decisions when the application's clock is hours off.
   */
  @Nested
  class Expiry extends ExpiryTests {
    Expiry() {
      super(IdempotencyStoreContract.this);
    }
  }

  /**
   * Identity and limits: tenants and tools do not share keys, keys and the longest identities are
   * kept exactly, results round-trip byte for byte up to the size limit, stored failures replay.
   */
  @Nested
  class IdentityAndResults extends IdentityAndResultTests {
    IdentityAndResults() {
      super(IdempotencyStoreContract.this);
    }
  }

  /**
   * Threads racing through gates on one store: on one free key, onto an expired completed row, onto
   * an expired lease, and over many keys; each action runs once and every caller gets its result.
   */
  @Nested
  class Concurrency extends ConcurrencyTests {
    Concurrency() {
      super(IdempotencyStoreContract.this);
    }
  }
}
