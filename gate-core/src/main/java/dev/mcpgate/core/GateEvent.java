package dev.mcpgate.core;

import dev.mcpgate.core.internal.Checks;
import java.time.Duration;
import java.time.Instant;
import java.util.Locale;

/**
 * One decision of the gate, for listeners (logs, metrics, an audit sink). Each type says exactly
 * what happened; nothing is emitted for what did not.
 *
 * @param type what happened
 * @param id the claim; null for {@link Type#REJECTED}, which is decided before any claim (the
 *     call's tenant or key may be missing, and neither is told to listeners)
 * @param attempt the attempt number concerned (0 when no attempt is, as for a conflict)
 * @param tokenFingerprint a fingerprint of the lease token of that attempt ({@link
 *     LeaseToken#fingerprint()}), to follow one attempt through the events of a key without showing
 *     its token; null when no attempt is concerned, and on {@link Type#REPLAYED}, which names the
 *     attempt whose result it returns but is not that attempt's own event
 * @param reason why a call was refused; null unless {@code type} is {@link Type#REFUSED}
 * @param message a sentence for logs
 * @param error the failure behind the event, or null
 * @param at when the gate saw it, by the application's clock (the gate builder's {@code clock});
 *     for logs only, since every expiry and lease decision follows the store's clock
 * @param keySource on a call's decision (acquired, replayed, refused): where its key came from
 *     ({@code argument}, {@code meta}, {@code natural}, {@code header}) when the caller said; null
 *     otherwise
 * @param waited on a call's decision: how long it waited on another attempt with the same key
 *     before it; zero when it did not wait
 * @param tool the tool called: {@code id.tool()}, or for {@link Type#REJECTED} the tool alone
 * @param rejection why a call was refused before the gate; null unless {@code type} is {@link
 *     Type#REJECTED}
 * @param failure why the gate failed a call it could not claim (or that reached it closed); null
 *     unless {@code type} is {@link Type#FAILED}
 */
public record GateEvent(
    Type type,
    ClaimId id,
    int attempt,
    String tokenFingerprint,
    RefusalReason reason,
    String message,
    Throwable error,
    Instant at,
    String keySource,
    Duration waited,
    String tool,
    RejectionReason rejection,
    FailureReason failure) {

  /**
   * @throws NullPointerException if type, tool, message or at is null, or id for any type but
   *     {@link Type#REJECTED}
   * @throws IllegalArgumentException if a reason is given for any type but {@link Type#REFUSED}, or
   *     none for it; if a rejection is given for any type but {@link Type#REJECTED} (or an id for
   *     it), or none for it; if a failure is given for any type but {@link Type#FAILED}, or none
   *     for it; if tool is not the id's tool
   */
  public GateEvent {
    Checks.notNull(type, "type");
    Checks.notNull(tool, "tool");
    if (type != Type.REJECTED) {
      Checks.notNull(id, "id");
    }
    Checks.notNull(message, "message");
    Checks.notNull(at, "at");
    Checks.notNegative(waited, "waited");
    if ((type == Type.REFUSED) != (reason != null)) {
      throw new IllegalArgumentException(
          "a reason goes with REFUSED events, and only with them;"
              + " was "
              + type
              + " with reason "
              + reason);
    }
    if ((type == Type.REJECTED) != (rejection != null)
        || type == Type.REJECTED && id != null
        || id != null && !tool.equals(id.tool())) {
      throw new IllegalArgumentException(
          "a rejection goes with REJECTED events, and only with them, which have no claim id; was "
              + type
              + " with rejection "
              + rejection
              + ", tool "
              + tool
              + " and id "
              + id);
    }
    if ((type == Type.FAILED) != (failure != null)) {
      throw new IllegalArgumentException(
          "a failure goes with FAILED events, and only with them; was "
              + type
              + " with failure "
              + failure);
    }
  }

  /**
   * A call refused before the gate: no claim, no attempt, no tenant or key.
   *
   * @param tool the tool called
   * @param rejection why it was refused
   * @param message a sentence for logs, which names no tenant, key or argument value
   * @param at when it was refused, by the application's clock
   * @param keySource where its key came from, when it had one; null otherwise
   * @return the event
   * @throws NullPointerException if tool, rejection, message or at is null
   */
  public static GateEvent rejected(
      String tool, RejectionReason rejection, String message, Instant at, String keySource) {
    return new GateEvent(
        Type.REJECTED,
        null,
        0,
        null,
        null,
        message,
        null,
        at,
        keySource,
        Duration.ZERO,
        tool,
        Checks.notNull(rejection, "rejection"),
        null);
  }

  /**
   * The one vocabulary of call outcomes, for meters, span attributes and dashboards alike.
   *
   * @return {@code executed}, {@code takeover}, {@code replayed}, {@code refused.<reason>}, {@code
   *     rejected.<rejection>} or {@code failed.<failure>} (the reason in lower case) for a call's
   *     decision; null for any other event
   */
  public String outcome() {
    return switch (type) {
      case ACQUIRED -> isTakeover() ? "takeover" : "executed";
      case REPLAYED -> "replayed";
      case REFUSED -> "refused." + outcomeOf(reason);
      case REJECTED -> "rejected." + rejection.name().toLowerCase(Locale.ROOT);
      case FAILED -> "failed." + failure.name().toLowerCase(Locale.ROOT);
      case COMPLETED,
          RESULT_NOT_STORED,
          RELEASED,
          MARKED_UNKNOWN,
          LEASE_LOST,
          LEASE_RENEWED,
          LEASE_RENEWAL_FAILED,
          STORE_FAILED ->
          null;
    };
  }

  /**
   * How an attempt ended, in the same vocabulary for meters and span attributes: the {@code result}
   * of {@code mcpgate.attempts.ended}.
   *
   * @return {@code completed}, {@code result_not_stored}, {@code released}, {@code marked_unknown},
   *     {@code lease_lost} or {@code store_failed} for an event that ends an attempt; null for any
   *     other event
   */
  public String attemptResult() {
    return switch (type) {
      case COMPLETED -> "completed";
      case RESULT_NOT_STORED -> "result_not_stored";
      case RELEASED -> "released";
      case MARKED_UNKNOWN -> "marked_unknown";
      case LEASE_LOST -> "lease_lost";
      case STORE_FAILED -> "store_failed";
      case ACQUIRED, REPLAYED, REFUSED, REJECTED, FAILED, LEASE_RENEWED, LEASE_RENEWAL_FAILED ->
          null;
    };
  }

  /**
   * How a lease renewal went, for meters: the {@code result} of {@code mcpgate.lease.renewals}.
   * Every event has a word in exactly one of {@link #outcome()}, {@link #attemptResult()} and this,
   * so a listener that reads the three counts every event, and a new type must be placed in one of
   * them before the three switches compile.
   *
   * @return {@code renewed} or {@code failed} for a renewal event; null for any other event
   */
  public String renewalResult() {
    return switch (type) {
      case LEASE_RENEWED -> "renewed";
      case LEASE_RENEWAL_FAILED -> "failed";
      case ACQUIRED,
          REPLAYED,
          REFUSED,
          REJECTED,
          FAILED,
          COMPLETED,
          RESULT_NOT_STORED,
          RELEASED,
          MARKED_UNKNOWN,
          LEASE_LOST,
          STORE_FAILED ->
          null;
    };
  }

  /**
   * @return the reason as {@link #outcome()} says it, after {@code refused.}
   */
  private static String outcomeOf(RefusalReason reason) {
    return switch (reason) {
      case CONFLICT -> "conflict";
      case IN_PROGRESS -> "in_progress";
      case HOLDER_UNRESPONSIVE -> "holder_unresponsive";
      case OUTCOME_UNKNOWN -> "outcome_unknown";
      case RESULT_NOT_STORED -> "result_not_stored";
    };
  }

  /**
   * @return true for an acquired claim that took over an earlier attempt's expired lease
   */
  public boolean isTakeover() {
    return type == Type.ACQUIRED && attempt > 1;
  }

  /** What happened. */
  public enum Type {
    /**
     * A claim was acquired and the action runs now ({@link #isTakeover()} after an expired lease):
     * told just before it starts, or as a step-by-step claim is handed to the caller; never for a
     * claim released before its action (that call's decision is {@link #FAILED}).
     */
    ACQUIRED,
    /**
     * A stored result was returned; nothing ran. Told once the result was read for the caller: one
     * that cannot be read is {@link #FAILED}.
     */
    REPLAYED,
    /** A call was refused ({@link GateEvent#reason()} says why); nothing ran. */
    REFUSED,
    /**
     * A call was refused before the gate claimed anything ({@link GateEvent#rejection()} says why:
     * no tenant, no key, arguments that cannot be compared); nothing ran, nothing was stored. It
     * has no {@link GateEvent#id()}: listeners learn its tool and, when it had a key, the key's
     * source, never its tenant, key or arguments.
     */
    REJECTED,
    /**
     * The gate failed a call before its action started or a result was returned: the store could
     * not claim its key (or begin the unit of work that claims it, or answered with another key's
     * row), the gate was closed or began closing, the lease could not be confirmed before the
     * action, or a stored result could not be read. Nothing ran here; a claim taken on the way was
     * released ({@link GateEvent#failure()} says why; {@link GateEvent#error()} is the exception
     * behind it, if any). The call's result is that {@link GateResult.Failed}. Failures after an
     * action started are told by the events that end its attempt ({@link #RELEASED}, {@link
     * #STORE_FAILED}, ...).
     */
    FAILED,
    /** A result was stored (by the attempt, or by a reconciler's verdict). */
    COMPLETED,
    /**
     * The action ran but its result was too large to store: the key is fenced with a not-stored
     * marker, and retries are refused.
     */
    RESULT_NOT_STORED,
    /** A claim was released; a retry runs again. */
    RELEASED,
    /** The action's outcome is unknown; the key was marked as such and stays fenced. */
    MARKED_UNKNOWN,
    /**
     * An attempt learned that another attempt took over its lease: its write did nothing (or, told
     * by a refused renewal while the action runs, will do nothing).
     */
    LEASE_LOST,
    /** The lease of a running action was renewed (every {@link GatePolicy#leaseRenewal()}). */
    LEASE_RENEWED,
    /**
     * Renewing the lease of a running action failed (the store did not answer); the action goes on
     * and renewal is tried again. If the lease runs out first, another attempt may take over.
     */
    LEASE_RENEWAL_FAILED,
    /**
     * A store write after the action ran (storing the result, releasing, marking unknown) failed:
     * the key is fenced as unknown when it can be, else it stays claimed until its lease expires.
     */
    STORE_FAILED
  }
}
