package dev.mcpgate.dynamodb;

import dev.mcpgate.core.ClaimId;
import dev.mcpgate.core.LeaseToken;
import dev.mcpgate.core.StoreUnavailableException;
import dev.mcpgate.core.spi.ClaimRequest;
import dev.mcpgate.core.spi.HeldLease;
import java.time.Duration;
import java.time.InstantSource;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.RejectedExecutionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.DynamoDbServiceClientConfiguration;
import software.amazon.awssdk.services.dynamodb.model.AttributeDefinition;
import software.amazon.awssdk.services.dynamodb.model.KeySchemaElement;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.MultiRegionConsistency;
import software.amazon.awssdk.services.dynamodb.model.ReplicaDescription;
import software.amazon.awssdk.services.dynamodb.model.ResourceNotFoundException;
import software.amazon.awssdk.services.dynamodb.model.TableDescription;
import software.amazon.awssdk.services.dynamodb.model.TimeToLiveDescription;
import software.amazon.awssdk.services.dynamodb.model.TimeToLiveStatus;

/**
 * {@link DynamoDbIdempotencyStore#verify()}: the table's key schema, its TTL, and the renewal path,
 * checked with a probe item.
 */
final class TableCheck {
  private static final Logger LOG = LoggerFactory.getLogger(DynamoDbIdempotencyStore.class);

  /** The tenant and tool of the probe item that {@link #verifyRenewals} extends. */
  static final String PROBE_TENANT = "mcpgate:verify";

  static final String PROBE_TOOL = "renewal-path";

  /** The probe's lease as claimed. */
  private static final Duration PROBE_LEASE = Duration.ofMinutes(1);

  /**
   * What the probe's lease is extended to, from now: later than it was claimed with, so that the
   * extension writes (even on a clock that has not moved), within its expiry, so that it is one
   * write.
   */
  private static final Duration PROBE_EXTENSION = Duration.ofSeconds(90);

  /** The probe's expiry: it is released at once, or expires after this. */
  private static final Duration PROBE_EXPIRY = Duration.ofMinutes(2);

  /** How long the probe's extension may take through the renewal client. */
  private static final Duration RENEWAL_CHECK = Duration.ofSeconds(10);

  private final Requests requests;
  private final Requests renewalRequests;
  private final ClaimItems items;
  private final ClaimWrites writes;
  private final Renewals renewals;
  private final InstantSource clock;

  TableCheck(
      Requests requests,
      Requests renewalRequests,
      ClaimItems items,
      ClaimWrites writes,
      Renewals renewals,
      InstantSource clock) {
    this.requests = requests;
    this.renewalRequests = renewalRequests;
    this.items = items;
    this.writes = writes;
    this.renewals = renewals;
    this.clock = clock;
  }

  /** See {@link DynamoDbIdempotencyStore#verify()}. */
  void verify() {
    String table = requests.table;
    TableDescription description =
        requests
            .call(
                "look up the key schema",
                () -> requests.client.describeTable(d -> d.tableName(table)))
            .table();
    String expected = keys(items.partitionKey, items.sortKey, null);
    String actual = actualKeys(description);
    if (!expected.equals(actual)) {
      throw new StoreUnavailableException(
          "DynamoDB table "
              + table
              + " has the key schema "
              + actual
              + ", but the store is built for "
              + expected
              + ": build the store with the table's keys (partitionKey, sortKey), or give it a"
              + " table with these (docs/stores.md, Table definition)",
          null);
    }
    warnIfNoTtl(table);
    warnIfReplicatedEventually(description);
    if (renewalRequests == requests) {
      LOG.warn(
          "DynamoDB table {}: the gate's lease renewals go through the main DynamoDbClient and"
              + " wait for its connections. When the application's own requests hold them all, a"
              + " running action's lease can run out and a retry elsewhere run it again. Give"
              + " renewals a client with an HTTP client of its own: the builder's"
              + " renewalClient(...), or the same client there to accept this (docs/stores.md)",
          table);
    }
    verifyRenewals();
  }

  private String actualKeys(TableDescription description) {
    String hash = null;
    String range = null;
    for (KeySchemaElement key : description.keySchema()) {
      if (key.keyType() == KeyType.HASH) {
        hash = key.attributeName();
      } else if (key.keyType() == KeyType.RANGE) {
        range = key.attributeName();
      }
    }
    return keys(hash, range, description.attributeDefinitions());
  }

  /**
   * @param definitions the table's attribute definitions, for the keys' types; null for the
   *     builder's keys, which are strings
   */
  private static String keys(String hash, String range, List<AttributeDefinition> definitions) {
    return "partition key "
        + hash
        + " ("
        + type(hash, definitions)
        + "), "
        + (range == null
            ? "no sort key"
            : "sort key " + range + " (" + type(range, definitions) + ")");
  }

  private static String type(String attribute, List<AttributeDefinition> definitions) {
    if (definitions == null) {
      return "S";
    }
    return definitions.stream()
        .filter(d -> d.attributeName().equals(attribute))
        .map(AttributeDefinition::attributeTypeAsString)
        .findFirst()
        .orElse("?");
  }

  /**
   * Logs a warning when the table is a global table whose replicas are eventually consistent: a
   * claim written in one Region is not seen by a claim in another until it replicates (the last
   * writer wins), so two servers in two Regions can both claim a key and both run its action. Never
   * fails: servers that all write to one Region are safe.
   */
  private static void warnIfReplicatedEventually(TableDescription description) {
    if (!description.hasReplicas()
        || description.replicas().isEmpty()
        || description.multiRegionConsistency() == MultiRegionConsistency.STRONG) {
      return;
    }
    LOG.warn(
        "DynamoDB table {} is a global table with eventually consistent replicas ({}): claims"
            + " written in two Regions do not see each other until they replicate, and both can"
            + " run the action. Send every server's requests to one Region's replica, or use"
            + " multi-Region strong consistency (docs/stores.md, Global tables)",
        description.tableName(),
        description.replicas().stream()
            .map(ReplicaDescription::regionName)
            .collect(java.util.stream.Collectors.joining(", ")));
  }

  /**
   * Logs a warning when TTL is not enabled on the TTL attribute: expiry is enforced without it, but
   * expired items then stay until {@code purgeExpired} removes them. Never fails.
   */
  private void warnIfNoTtl(String table) {
    TimeToLiveDescription ttl;
    try {
      ttl = requests.client.describeTimeToLive(d -> d.tableName(table)).timeToLiveDescription();
    } catch (SdkException e) {
      LOG.warn(
          "could not read the TTL settings of DynamoDB table {} ({}); expired items are deleted"
              + " only if TTL is enabled on attribute {}, else they stay until purgeExpired"
              + " removes them",
          table,
          e.getMessage(),
          items.ttlAttribute);
      return;
    }
    TimeToLiveStatus status = ttl == null ? null : ttl.timeToLiveStatus();
    boolean on =
        (status == TimeToLiveStatus.ENABLED || status == TimeToLiveStatus.ENABLING)
            && items.ttlAttribute.equals(ttl.attributeName());
    if (!on) {
      LOG.warn(
          "TTL of DynamoDB table {} is {}{}, not enabled on attribute {}: expired items stay until"
              + " purgeExpired removes them (docs/stores.md, Table definition)",
          table,
          status == null ? "unknown" : ttl.timeToLiveStatusAsString(),
          ttl == null || ttl.attributeName() == null ? "" : " on attribute " + ttl.attributeName(),
          items.ttlAttribute);
    }
  }

  /**
   * Claims a probe item (its own tenant and tool, a random key, a one-minute lease, a two-minute
   * expiry) through the main client, extends its lease as the gate's renewals do (through the
   * renewal client), and releases it: a renewal client that reaches another table of the same name
   * (another region, account or endpoint) finds no item, and would report every lease lost while
   * its action runs, so that a retry takes the key over. The probe is released either way, or left
   * to expire if the release fails.
   */
  private void verifyRenewals() {
    String table = requests.table;
    ClaimId probe = new ClaimId(PROBE_TENANT, PROBE_TOOL, UUID.randomUUID().toString());
    LeaseToken token = LeaseToken.random();
    writes.claim(new ClaimRequest(probe, "probe", token, PROBE_LEASE, PROBE_EXPIRY));
    boolean own = renewalRequests.client != requests.client; // a renewal client of its own
    String renewalPath =
        "lease renewals of DynamoDB table "
            + table
            + " go through the renewal client ("
            + where(renewalRequests.client)
            + (own ? "" : ", the main client")
            + "), which ";
    String fix =
        ", and a retry would take its key over and run the action again"
            + (own
                ? ". Give the renewal client the main client's region, endpoint and credentials ("
                    + where(requests.client)
                    + ")"
                : "");
    boolean extended;
    try {
      extended =
          renewals
              .extend(
                  List.of(new HeldLease(probe, token)),
                  clock.millis() + PROBE_EXTENSION.toMillis(),
                  RENEWAL_CHECK)
              .extended()
              .contains(token);
    } catch (StoreUnavailableException e) {
      if (renewals.runsOnCallersExecutor() && cause(e, RejectedExecutionException.class) != null) {
        throw new StoreUnavailableException(
            "lease renewals of DynamoDB table "
                + table
                + " are sent from the builder's renewalExecutor, which refused the probe's"
                + " extension ("
                + e.getMessage()
                + "): without renewals a running action's lease runs out, and a retry would take"
                + " its key over and run the action again. Give renewalExecutor an executor that"
                + " takes up to renewalConcurrency tasks at once",
            e);
      }
      ResourceNotFoundException missing = cause(e, ResourceNotFoundException.class);
      throw new StoreUnavailableException(
          renewalPath
              + (missing != null
                  ? "finds no table "
                      + table
                      + " there, although the main client just wrote to it ("
                      + missing.getMessage()
                      + ")"
                  : "could not extend a probe lease (" + e.getMessage() + ")")
              + ": without renewals a running action's lease runs out"
              + fix,
          e);
    } finally {
      try {
        writes.release(probe, token);
      } catch (RuntimeException e) {
        LOG.warn("the renewal path's probe item {} is left to expire (in two minutes)", probe, e);
      }
    }
    if (!extended) {
      throw new StoreUnavailableException(
          renewalPath
              + "does not find the probe item the main client just wrote (another region, account"
              + " or endpoint with a table of that name?): renewals would report every running"
              + " action's lease lost"
              + fix,
          null);
    }
  }

  /**
   * @return the first cause of {@code type} in the chain of {@code e}, or null
   */
  private static <T extends Throwable> T cause(Throwable e, Class<T> type) {
    for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (type.isInstance(t)) {
        return type.cast(t);
      }
    }
    return null;
  }

  /**
   * @return the client's region and endpoint, as far as its configuration tells them
   */
  static String where(DynamoDbClient client) {
    try {
      DynamoDbServiceClientConfiguration c = client.serviceClientConfiguration();
      return "region "
          + c.region()
          + ", endpoint "
          + c.endpointOverride().map(Object::toString).orElse("the region's default");
    } catch (RuntimeException notTold) {
      return "region and endpoint unknown";
    }
  }
}
