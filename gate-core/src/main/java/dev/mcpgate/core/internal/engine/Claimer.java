package dev.mcpgate.core.internal.engine;

import static dev.mcpgate.core.internal.Checks.quote;

import dev.mcpgate.core.ClaimId;
import dev.mcpgate.core.ClaimOutcome;
import dev.mcpgate.core.GatePolicy;
import dev.mcpgate.core.LeaseToken;
import dev.mcpgate.core.RefusalReason;
import dev.mcpgate.core.ResultCodec;
import dev.mcpgate.core.ToolCall;
import dev.mcpgate.core.hash.ArgumentHasher;
import dev.mcpgate.core.spi.ClaimAttempt;
import dev.mcpgate.core.spi.ClaimRecord;
import dev.mcpgate.core.spi.ClaimRequest;
import dev.mcpgate.core.spi.ClaimState;
import dev.mcpgate.core.spi.IdempotencyStore;
import dev.mcpgate.core.spi.StoredResult;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * Claims a call in the store and turns the store's answer into a {@link ClaimOutcome}: acquired,
 * replayed, or refused for a reason. Waits a bounded time on a call that another attempt is
 * running, and hands rows whose outcome is unknown to the {@link Reconciliation}. Every refusal
 * that reaches the caller is told to the listeners once. The policy (lease, retention, in-flight
 * wait, reconciler) is the calling gate's, passed with each call.
 */
final class Claimer {
  private static final Duration MAX_RETRY_AFTER = Duration.ofSeconds(5);

  private final IdempotencyStore store;
  private final ResultCodec codec;
  private final Events events;
  private final Reconciliation reconciliation;

  private final Ticker ticker;
  private final CallsInFlight calls;

  Claimer(
      IdempotencyStore store,
      ResultCodec codec,
      Events events,
      Reconciliation reconciliation,
      Ticker ticker,
      CallsInFlight calls) {
    this.ticker = ticker;
    this.calls = calls;
    this.store = store;
    this.codec = codec;
    this.events = events;
    this.reconciliation = reconciliation;
  }

  /**
   * What a waiting claim ended with.
   *
   * @param outcome acquired, replayed or refused
   * @param sentNanos {@link Ticker#nanoTime()} just before the claim that decided was sent
   * @param waited how long it waited on another attempt, as its decision event says
   */
  record Claimed(ClaimOutcome outcome, long sentNanos, Duration waited) {}

  /** Claims once, without waiting. */
  ClaimOutcome claim(GatePolicy policy, ToolCall call, String hash) {
    Arrival arrival = Arrival.of(call, ticker);
    return told(claimOnce(policy, call, hash, 0, arrival), arrival);
  }

  /**
   * Claims, and while another attempt holds the key, claims again with a growing back-off until the
   * policy's in-flight wait runs out (or the thread is interrupted).
   */
  Claimed claimWaiting(GatePolicy policy, ToolCall call, String hash) {
    Arrival arrival = Arrival.of(call, ticker);
    long deadline = arrival.startNanos() + policy.inFlightWait().toNanos();
    long backoffMs = FIRST_BACKOFF_MS;
    while (true) {
      ClaimOutcome outcome;
      try {
        outcome = claimOnce(policy, call, hash, 0, arrival);
      } catch (CallFailure failure) {
        throw failure.afterWaiting(arrival.waitedFor());
      }
      if (!(outcome instanceof ClaimOutcome.Refused refused)
          || (refused.reason() != RefusalReason.IN_PROGRESS
              && refused.reason() != RefusalReason.HOLDER_UNRESPONSIVE)) {
        return claimed(told(outcome, arrival), arrival);
      }
      long sleepMs = sleepMs(backoffMs, deadline - ticker.nanoTime(), refused.retryAfter());
      if (sleepMs == 0) {
        return claimed(told(outcome, arrival), arrival);
      }
      if (calls.isDraining()) { // a closing gate starts no action: waiting on is for nothing
        throw CallFailure.gateClosed(
                "the gate is closing; the action did not run; safe to retry", null)
            .afterWaiting(arrival.waitedFor());
      }
      arrival.waiting();
      try {
        ticker.sleep(TimeUnit.MILLISECONDS.toNanos(sleepMs));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return claimed(told(outcome, arrival), arrival);
      }
      backoffMs = nextBackoffMs(backoffMs);
    }
  }

  private static Claimed claimed(ClaimOutcome outcome, Arrival arrival) {
    return new Claimed(outcome, arrival.sentNanos(), arrival.told());
  }

  static final long FIRST_BACKOFF_MS = 5;
  static final long MAX_BACKOFF_MS = 100;

  /**
   * How long to sleep before claiming again: the back-off, but never past the wait's end nor past
   * the holder's retry-after, and at least 1 ms.
   *
   * @param remainingNanos what is left of the in-flight wait
   * @return 0 when the wait has run out (less than a millisecond left)
   */
  static long sleepMs(long backoffMs, long remainingNanos, Duration retryAfter) {
    long remainingMs = remainingNanos / 1_000_000;
    if (remainingMs <= 0) {
      return 0;
    }
    return Math.max(1, Math.min(Math.min(backoffMs, remainingMs), retryAfter.toMillis()));
  }

  /**
   * @return the back-off after one more round: doubled, at most {@value #MAX_BACKOFF_MS} ms
   */
  static long nextBackoffMs(long backoffMs) {
    return Math.min(backoffMs * 2, MAX_BACKOFF_MS);
  }

  /** Tells the listeners of a refusal that came after a wait outside this claimer. */
  ClaimOutcome toldAfterWaiting(ClaimOutcome.Refused refused, ToolCall call, Duration waited) {
    events.refused(refused, call.keySource(), waited);
    return refused;
  }

  /**
   * Tells a refusal; an acquired claim and a replay are told by the engine once they are final (the
   * action starts, the result was read), with the wait kept here ({@link Arrival#told()}).
   */
  private ClaimOutcome told(ClaimOutcome outcome, Arrival arrival) {
    Duration waited = arrival.waitedFor();
    if (outcome instanceof ClaimOutcome.Refused refused) {
      events.refused(refused, arrival.keySource(), waited);
    }
    return outcome;
  }

  private ClaimOutcome claimOnce(
      GatePolicy policy, ToolCall call, String hash, int reconciliations, Arrival arrival) {
    ClaimId id = call.id();
    LeaseToken token = LeaseToken.random();
    arrival.sending();
    ClaimAttempt attempt =
        write(new ClaimRequest(id, hash, token, policy.lease(), policy.retention()));
    if (attempt instanceof ClaimAttempt.Acquired) {
      return acquired(attempt.record(), token);
    }
    return classify(policy, call, hash, attempt, reconciliations, arrival);
  }

  /**
   * What {@link #existing} answers when a reconciler settled an unknown row and the call should
   * claim again, in its own transaction (single-commit mode). Never told to listeners.
   */
  static final ClaimOutcome.Refused CLAIM_AGAIN =
      new ClaimOutcome.Refused(
          new ClaimId("-", "-", "-"),
          RefusalReason.OUTCOME_UNKNOWN,
          Duration.ZERO,
          "settled by the reconciler; claim again");

  /**
   * Turns a row that a single-commit claim found (and did not take) into replayed or refused. The
   * refusal is told to the listeners. A row whose outcome is unknown is put to the reconciler
   * first; when it lifts the fence (or the row changed meanwhile), the answer is {@link
   * #CLAIM_AGAIN}: the caller claims again in a new transaction.
   */
  ClaimOutcome existing(
      GatePolicy policy,
      ToolCall call,
      String hash,
      ClaimAttempt.Existing existing,
      int reconciliations) {
    Arrival arrival = Arrival.of(call, ticker);
    ClaimOutcome outcome =
        classify(policy, call, hash, existing, reconciliations, arrival, () -> CLAIM_AGAIN);
    return outcome == CLAIM_AGAIN ? outcome : told(outcome, arrival);
  }

  private ClaimOutcome classify(
      GatePolicy policy,
      ToolCall call,
      String hash,
      ClaimAttempt attempt,
      int reconciliations,
      Arrival arrival) {
    return classify(
        policy,
        call,
        hash,
        attempt,
        reconciliations,
        arrival,
        () -> claimOnce(policy, call, hash, reconciliations + 1, arrival));
  }

  private ClaimOutcome classify(
      GatePolicy policy,
      ToolCall call,
      String hash,
      ClaimAttempt attempt,
      int reconciliations,
      Arrival arrival,
      Supplier<ClaimOutcome> again) {
    ClaimId id = call.id();
    ClaimRecord row = attempt.record();
    if (!ArgumentHasher.matches(row.argsHash(), hash)) {
      return new ClaimOutcome.Refused(
          id,
          RefusalReason.CONFLICT,
          Duration.ZERO,
          "the key "
              + quote(id.key())
              + " was used before for "
              + id.tool()
              + " with other"
              + " arguments (stored hash "
              + row.argsHash()
              + ", this call's "
              + hash
              + ")");
    }
    // a row held by an operator's settlement that stopped before fencing it counts as unknown:
    // nothing runs under it, and it is fenced until its lease runs out
    return switch (OperatorSettlement.countsAs(row)) {
      case COMPLETED -> replayed(row);
      case IN_PROGRESS ->
          held(policy, row, Duration.between(attempt.storeNow(), row.leaseExpiresAt()));
      case UNKNOWN -> {
        ClaimOutcome reconciled = reconciliation.reconcile(policy, id, row, reconciliations, again);
        if (reconciled != null) {
          yield reconciled;
        }
        Duration fenceLeft =
            Duration.between(
                attempt.storeNow(),
                row.state() == ClaimState.UNKNOWN ? row.expiresAt() : row.leaseExpiresAt());
        yield new ClaimOutcome.Refused(
            id,
            RefusalReason.OUTCOME_UNKNOWN,
            clamp(fenceLeft, MAX_RETRY_AFTER),
            "the outcome of an earlier attempt ("
                + (row.token().isSettlement()
                    ? "before " + row.attempt() + ", an operator's takeover not yet settled"
                    : row.attempt())
                + ") is unknown; the key is"
                + " fenced until someone who knows settles it"
                + (policy.reconciler() == null ? "" : " (the reconciler could not)")
                + ", or for at most "
                + Math.max(0, fenceLeft.toMillis())
                + " ms more");
      }
    };
  }

  /**
   * Refuses a call whose key another attempt holds, saying whether that attempt still renews its
   * lease. When it was last renewed is worked out from the lease left: a holder renews to a full
   * {@link GatePolicy#lease()} (this gate's, so processes sharing keys should share the setting),
   * so a lease shorter than a full one by more than two renewal periods means renewals stopped.
   */
  private ClaimOutcome held(GatePolicy policy, ClaimRecord row, Duration leaseLeft) {
    ClaimId id = row.id();
    Duration left = leaseLeft.isNegative() ? Duration.ZERO : leaseLeft;
    Duration sinceRenewal = policy.lease().minus(left);
    if (sinceRenewal.isNegative()) {
      sinceRenewal = Duration.ZERO; // the holder took a longer lease than this gate's
    }
    boolean stopped =
        policy.renewsLease() && sinceRenewal.compareTo(policy.leaseRenewal().multipliedBy(2)) > 0;
    if (stopped) {
      Duration retryAfter = clamp(left, left.plusMillis(1));
      return new ClaimOutcome.Refused(
          id,
          RefusalReason.HOLDER_UNRESPONSIVE,
          retryAfter,
          "the earlier attempt ("
              + row.attempt()
              + ") stopped responding: its lease was last"
              + " renewed about "
              + sinceRenewal.toMillis()
              + " ms ago and expires in "
              + left.toMillis()
              + " ms; a retry after that takes the key over");
    }
    Duration retryAfter = clamp(left, MAX_RETRY_AFTER);
    return new ClaimOutcome.Refused(
        id,
        RefusalReason.IN_PROGRESS,
        retryAfter,
        "another attempt ("
            + row.attempt()
            + ") is running with the same key: its lease was"
            + " renewed about "
            + sinceRenewal.toMillis()
            + " ms ago and expires in "
            + left.toMillis()
            + " ms; retry after "
            + retryAfter.toMillis()
            + " ms");
  }

  private ClaimAttempt write(ClaimRequest request) {
    ClaimAttempt attempt;
    try {
      attempt = store.claim(request);
    } catch (RuntimeException e) {
      throw CallFailure.notClaimed(request.id(), e);
    }
    return ClaimIdentity.checked(
        request, attempt, () -> store.release(attempt.record().id(), attempt.record().token()));
  }

  /**
   * The claim of the row holding {@code token}. Its decision is told when its action starts ({@link
   * Events#acquired}), and a replay's once its result is read ({@link Events#replayed}).
   */
  ClaimOutcome.Acquired acquired(ClaimRecord row, LeaseToken token) {
    if (!row.token().equals(token)) {
      throw new IllegalStateException(
          "store "
              + store.getClass().getName()
              + " reported a claim of "
              + row.id()
              + " that its new token does not hold");
    }
    return new ClaimOutcome.Acquired(
        row.id(), token, row.attempt(), row.createdAt(), row.leaseExpiresAt(), row.argsHash());
  }

  private ClaimOutcome replayed(ClaimRecord row) {
    StoredResult stored = row.result();
    if (stored.kind() == StoredResult.Kind.NOT_STORED) {
      return new ClaimOutcome.Refused(
          row.id(),
          RefusalReason.RESULT_NOT_STORED,
          Duration.ZERO,
          "attempt "
              + row.attempt()
              + " ran, but its result was too large to store; the call"
              + " is not run again with this key");
    }
    try {
      stored = new StoredResult(stored.kind(), codec.decode(row.id(), stored.body()));
    } catch (RuntimeException e) {
      throw Results.unreadable(row.id(), stored.body().length, "codec", e);
    }
    return new ClaimOutcome.Replayed(
        row.id(),
        stored,
        row.attempt(),
        row.createdAt(),
        row.completedAt(),
        row.token().isSettlement());
  }

  /**
   * @return value, raised to 1 ms and capped at max
   */
  static Duration clamp(Duration value, Duration max) {
    Duration min = Duration.ofMillis(1);
    if (value.compareTo(min) < 0) {
      return min;
    }
    return value.compareTo(max) > 0 ? max : value;
  }
}
