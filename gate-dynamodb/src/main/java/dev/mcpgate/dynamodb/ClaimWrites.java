package dev.mcpgate.dynamodb;

import static dev.mcpgate.dynamodb.ClaimItems.ATTEMPT;
import static dev.mcpgate.dynamodb.ClaimItems.EXPIRES;
import static dev.mcpgate.dynamodb.ClaimItems.STATE;
import static dev.mcpgate.dynamodb.ClaimItems.TOKEN;
import static dev.mcpgate.dynamodb.ClaimItems.n;
import static dev.mcpgate.dynamodb.ClaimItems.s;
import static java.util.Objects.requireNonNull;

import dev.mcpgate.core.ClaimId;
import dev.mcpgate.core.LeaseToken;
import dev.mcpgate.core.StoreUnavailableException;
import dev.mcpgate.core.spi.ClaimAttempt;
import dev.mcpgate.core.spi.ClaimRecord;
import dev.mcpgate.core.spi.ClaimRequest;
import dev.mcpgate.core.spi.ClaimState;
import dev.mcpgate.core.spi.StoreArguments;
import dev.mcpgate.core.spi.StoredResult;
import dev.mcpgate.core.spi.Takeover;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;
import software.amazon.awssdk.services.dynamodb.model.PutItemRequest;
import software.amazon.awssdk.services.dynamodb.model.ReturnValuesOnConditionCheckFailure;

/**
 * The conditional writes of a claim's item but the lease extensions ({@link LeaseWrites}): the
 * claim itself, then the completion, the release and the mark-unknown, each conditional on the
 * lease token. Times come from the store's clock.
 */
final class ClaimWrites {
  private static final Logger LOG = LoggerFactory.getLogger(DynamoDbIdempotencyStore.class);
  private static final int CLAIM_ROUNDS = 5;
  private static final String PUT_ON_RETRY =
      "its write may have landed (the SDK's retry of it was refused)";
  private static final String TAKEOVER_ON_RETRY =
      "a takeover of it may have landed (the SDK's retry of it was refused)";

  private final Requests requests;
  private final ClaimItems items;
  private final InstantSource clock;
  private final long marginMs;
  private volatile boolean oldItemOnFailure = true;

  ClaimWrites(Requests requests, ClaimItems items, InstantSource clock, long marginMs) {
    this.requests = requests;
    this.items = items;
    this.clock = clock;
    this.marginMs = marginMs;
  }

  /**
   * @return whether the server returned the old item on a failed condition so far
   */
  boolean returnsOldItemOnConditionFailure() {
    return oldItemOnFailure;
  }

  /**
   * Claims in one conditional write: a {@code PutItem} when the key is absent or expired (attempt
   * 1, one request); otherwise the item found decides, by the one takeover rule, and a live item
   * whose lease may be taken over is taken by one {@code UpdateItem} conditional on the token read
   * and on the rule (attempt + 1). Either write takes the key whole or not at all; a failure after
   * one that may have landed, unread since, says that it may hold the key.
   *
   * <p>A claim {@linkplain ClaimRequest#replacing replacing} a token never puts a new item: it
   * reads the item (strongly consistent), answers absent where there is none, and takes only an
   * item that holds that token, by the same {@code UpdateItem} conditional on the token read.
   */
  ClaimAttempt claim(ClaimRequest r) {
    requireNonNull(r, "request must not be null");
    Unread[] unread = new Unread[1];
    try {
      return claimInRounds(r, unread);
    } catch (StoreUnavailableException failed) {
      Unread u = unread[0];
      if (u == null) {
        throw failed;
      }
      // a write of this request's may hold the key: what the caller is told must say so
      StoreUnavailableException told = unread(r, u.write(), failed);
      if (failed != u.readFailed()) {
        told.addSuppressed(u.readFailed());
      }
      throw told;
    }
  }

  /** A write refused on the SDK's retry (an earlier try may have landed) and the failed read. */
  private record Unread(String write, StoreUnavailableException readFailed) {}

  /**
   * The claim's rounds; {@code unread[0]} holds a write refused on the SDK's retry, which may have
   * landed, whose item could not be read back, until a later read of the item succeeds.
   */
  private ClaimAttempt claimInRounds(ClaimRequest r, Unread[] unread) {
    for (int round = 0; round < CLAIM_ROUNDS; round++) {
      long now = clock.millis();
      // the row and the lease count as over only the safety margin after their recorded end
      long cutoffMs = now - marginMs;
      Map<String, AttributeValue> item = items.newClaim(r, now);
      Map<String, AttributeValue> existing;
      if (r.replacing() != null) {
        existing = requests.get(items.key(r.id()), "read " + r.id());
        unread[0] = null; // read: what it holds decides
        if (existing == null) {
          return new ClaimAttempt.Absent(Instant.ofEpochMilli(now));
        }
      } else {
        ConditionalCheckFailedException refused;
        try {
          refused = put(r, item, cutoffMs);
        } catch (StoreUnavailableException failed) {
          return readBack(r, now, failed, unread);
        }
        if (refused == null) {
          return new ClaimAttempt.Acquired(items.read(item), Instant.ofEpochMilli(now));
        }
        existing = refused.hasItem() ? refused.item() : Map.of();
        if (existing.isEmpty()) {
          noticeNoOldItem();
          try {
            existing = requests.get(items.key(r.id()), "read " + r.id());
          } catch (StoreUnavailableException readFailed) {
            if (!Requests.earlierTries(refused) || unread[0] != null) {
              throw readFailed; // refused on its only try (it did not land), or unread once more
            }
            unread[0] = new Unread(PUT_ON_RETRY, readFailed);
            continue; // once: the next round's write finds the item, this request's or not
          }
        }
        unread[0] = null; // the item read: what it holds decides
        if (existing == null) {
          continue; // released or purged since: claim again
        }
      }
      ClaimRecord row = items.readOf(r.id(), existing);
      if (row.token().equals(r.token()) && row.state() == ClaimState.IN_PROGRESS) {
        // this request's own write (the PutItem or the takeover), whose answer was lost and which
        // the SDK sent again: the retry found the item the first try wrote. Tokens are new per
        // request, so the key is this request's (a claim replacing a token too: its own write
        // put its token in place of the one it replaced)
        return new ClaimAttempt.Acquired(row, Instant.ofEpochMilli(now));
      }
      Instant cutoff = Instant.ofEpochMilli(cutoffMs);
      if (!Takeover.allowed(row, r, cutoff)) {
        // a lease or a fence counts as over only the margin after its end: the clock the gate
        // measures what is left of it by (its retry-after) is the one the rule read, now less the
        // margin; a completed row is replayed at the plain clock
        return new ClaimAttempt.Existing(
            row, row.state() == ClaimState.COMPLETED ? Instant.ofEpochMilli(now) : cutoff);
      }
      int attempt = Takeover.nextAttempt(row, cutoff);
      Expression u = new Expression();
      String update = items.takeover(u, r, attempt, now);
      String held =
          u.equals(TOKEN, s(row.token().value()))
              + " AND "
              + Conditions.takeoverAllowed(u, u.value(n(cutoffMs)), u.value(s(r.argsHash())));
      Requests.Outcome taken;
      try {
        taken = requests.updateTried(items.key(r.id()), u, update, held, "take over " + r.id());
      } catch (StoreUnavailableException failed) {
        return readBack(r, now, failed, unread);
      }
      if (taken == Requests.Outcome.WRITTEN) {
        item.put(ATTEMPT, n(attempt));
        return new ClaimAttempt.Acquired(items.read(item), Instant.ofEpochMilli(now));
      }
      if (taken == Requests.Outcome.REFUSED_ON_RETRY) {
        // an earlier try of the SDK's may have landed, its answer lost: read now, lest the last
        // round take this request's own takeover for another attempt's
        Map<String, AttributeValue> found;
        try {
          found = requests.get(items.key(r.id()), "read " + r.id());
        } catch (StoreUnavailableException readFailed) {
          unread[0] = new Unread(TAKEOVER_ON_RETRY, readFailed);
          continue; // the next round's write finds the item, this request's or not
        }
        unread[0] = null;
        if (heldByThisRequest(found, r)) {
          return new ClaimAttempt.Acquired(items.read(found), Instant.ofEpochMilli(now));
        }
      }
      // another attempt changed the item since it was read: claim again
    }
    if (unread[0] != null) {
      throw unread[0].readFailed();
    }
    throw new StoreUnavailableException(
        "claim of "
            + r.id()
            + " in DynamoDB table "
            + requests.table
            + " found neither a free key nor an item in "
            + CLAIM_ROUNDS
            + " rounds",
        null);
  }

  /** A write of the claim's that may have landed, and whose item could not be read back. */
  private StoreUnavailableException unread(ClaimRequest r, String write, RuntimeException failed) {
    return new StoreUnavailableException(
        "claim of "
            + r.id()
            + " in DynamoDB table "
            + requests.table
            + ": "
            + write
            + " and the item could not be read back since; the action did not run, and the key"
            + " may stay held by this claim until its lease and the lease safety margin after it"
            + " end",
        failed);
  }

  /**
   * Puts {@code item}, a new claim, where the key is absent or expired.
   *
   * @return null when it was put; else its refusal, with the item found where the server returns it
   * @throws StoreUnavailableException when the put failed without a refusal
   */
  private ConditionalCheckFailedException put(
      ClaimRequest r, Map<String, AttributeValue> item, long cutoffMs) {
    Expression e = new Expression();
    String condition =
        "attribute_not_exists("
            + e.name(items.partitionKey)
            + ") OR "
            + e.name(EXPIRES)
            + " <= "
            + e.value(n(cutoffMs));
    PutItemRequest.Builder put =
        PutItemRequest.builder()
            .tableName(requests.table)
            .item(item)
            .conditionExpression(condition)
            .expressionAttributeNames(e.names())
            .expressionAttributeValues(e.values());
    if (oldItemOnFailure) {
      put.returnValuesOnConditionCheckFailure(ReturnValuesOnConditionCheckFailure.ALL_OLD);
    }
    try {
      requests.call("claim " + r.id(), () -> requests.client.putItem(put.build()));
      return null;
    } catch (ConditionalCheckFailedException refused) {
      return refused;
    }
  }

  /**
   * A claim's write failed without a refusal: it may have landed all the same (its answer lost, the
   * SDK's retries spent or timed out, or a server error after the write). Unless the request surely
   * never reached the server (no connection) or the server surely refused it (a client error), on
   * its only try (an earlier try of the SDK's may have landed whatever the last one met), the item
   * is read back: holding the request's token, it is the request's claim. A claim replacing a token
   * writes only over the item that holds it, never a new one: where there is no item, it holds
   * none, and is told absent.
   *
   * @return the request's claim, or absent
   * @throws StoreUnavailableException the write's failure, when the item is not the request's; a
   *     failure that says the write may hold the key, when the item could not be read
   */
  private ClaimAttempt readBack(
      ClaimRequest r, long now, StoreUnavailableException failed, Unread[] unread) {
    Throwable cause = failed.getCause();
    if (!Requests.mayHaveLanded(cause) && !Requests.earlierTries(cause)) {
      throw failed;
    }
    Map<String, AttributeValue> item;
    try {
      // the last try reached no server: one read, lest an outage cost the SDK's retries twice
      item = requests.get(items.key(r.id()), "read " + r.id(), !Requests.neverSent(cause));
      unread[0] = null; // read: the item decides
    } catch (RuntimeException readFailed) {
      StoreUnavailableException told = unread(r, "its write may have landed", failed);
      told.addSuppressed(readFailed);
      throw told;
    }
    if (item == null && r.replacing() != null) {
      return new ClaimAttempt.Absent(Instant.ofEpochMilli(now));
    }
    if (heldByThisRequest(item, r)) {
      return new ClaimAttempt.Acquired(items.read(item), Instant.ofEpochMilli(now));
    }
    throw failed;
  }

  /** Whether {@code item} is the request's own claim: in progress, with the request's token. */
  private static boolean heldByThisRequest(Map<String, AttributeValue> item, ClaimRequest r) {
    return holds(item, r.token(), ClaimState.IN_PROGRESS);
  }

  /** Whether {@code item} is there, with {@code token}, in {@code state}. */
  private static boolean holds(
      Map<String, AttributeValue> item, LeaseToken token, ClaimState state) {
    return item != null
        && item.containsKey(TOKEN)
        && token.value().equals(item.get(TOKEN).s())
        && item.containsKey(STATE)
        && state.name().equals(item.get(STATE).s());
  }

  /** The server did not return the old item on a failed condition: read it with a GetItem. */
  private void noticeNoOldItem() {
    if (oldItemOnFailure) {
      oldItemOnFailure = false;
      LOG.info(
          "DynamoDB server at table {} did not return the old item on a failed condition;"
              + " replays will cost a GetItem more",
          requests.table);
    }
  }

  /**
   * Completes, conditional on the token and on the item not completed. A refusal on the SDK's retry
   * (the first try's answer lost) reads the item back: completed by this token at this completion's
   * time is this very write, which landed.
   */
  boolean complete(ClaimId id, LeaseToken token, StoredResult result, Duration retention) {
    requireNonNull(result, "result must not be null");
    StoreArguments.atLeastOneMs(retention, "retention");
    long now = clock.millis();
    Expression e = new Expression();
    String update = items.completion(e, id, result, now, retention);
    Requests.Outcome outcome =
        requests.updateTried(
            items.key(id),
            e,
            update,
            Conditions.heldBy(e, token, "<>", ClaimState.COMPLETED),
            "complete " + id);
    if (outcome != Requests.Outcome.REFUSED_ON_RETRY) {
      return outcome == Requests.Outcome.WRITTEN;
    }
    Map<String, AttributeValue> item = requests.get(items.key(id), "read " + id);
    return holds(item, token, ClaimState.COMPLETED)
        && item.containsKey(ClaimItems.COMPLETED)
        && ClaimItems.number(item, ClaimItems.COMPLETED) == now
        && result.equals(items.readOf(id, item).result()); // not another completion by the token
  }

  /**
   * Deletes the item, conditional on the token and on the item not completed. A refusal on the
   * SDK's retry (the first try's answer lost) that finds no item is this very delete, which landed.
   */
  boolean release(ClaimId id, LeaseToken token) {
    Expression e = new Expression();
    Requests.Outcome outcome =
        requests.deleteTried(
            items.key(id),
            e,
            Conditions.heldBy(e, token, "<>", ClaimState.COMPLETED),
            "release " + id);
    if (outcome != Requests.Outcome.REFUSED_ON_RETRY) {
      return outcome == Requests.Outcome.WRITTEN;
    }
    return requests.get(items.key(id), "read " + id) == null;
  }

  /**
   * Marks the item unknown and sets its expiry (and TTL) {@code fence} after now, in one {@code
   * UpdateItem} conditional on the token and {@code state = IN_PROGRESS}. A refusal on the SDK's
   * retry (the first try's answer lost) reads the item back: fenced by this token at this fence's
   * expiry is this very write, which landed.
   */
  boolean markUnknown(ClaimId id, LeaseToken token, Duration fence) {
    requireNonNull(id, "id must not be null");
    requireNonNull(token, "token must not be null");
    StoreArguments.atLeastOneMs(fence, "fence");
    long expires = clock.millis() + fence.toMillis();
    Expression e = new Expression();
    String update =
        "SET "
            + e.equals(STATE, s(ClaimState.UNKNOWN.name()))
            + ", "
            + e.equals(EXPIRES, n(expires))
            + ", "
            + e.equals(items.ttlAttribute, n(items.ttlSeconds(expires)));
    Requests.Outcome outcome =
        requests.updateTried(
            items.key(id),
            e,
            update,
            Conditions.heldBy(e, token, "=", ClaimState.IN_PROGRESS),
            "mark unknown " + id);
    if (outcome != Requests.Outcome.REFUSED_ON_RETRY) {
      return outcome == Requests.Outcome.WRITTEN;
    }
    Map<String, AttributeValue> item = requests.get(items.key(id), "read " + id);
    return holds(item, token, ClaimState.UNKNOWN) && ClaimItems.number(item, EXPIRES) == expires;
  }
}
