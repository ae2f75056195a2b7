package dev.mcpgate.dynamodb;

import static dev.mcpgate.core.internal.Checks.notNull;

import dev.mcpgate.core.ClaimId;
import dev.mcpgate.core.LeaseToken;
import dev.mcpgate.core.ResultTooLargeException;
import dev.mcpgate.core.StoreUnavailableException;
import dev.mcpgate.core.internal.Checks;
import dev.mcpgate.core.spi.ClaimAttempt;
import dev.mcpgate.core.spi.ClaimRecord;
import dev.mcpgate.core.spi.ClaimRequest;
import dev.mcpgate.core.spi.ClaimState;
import dev.mcpgate.core.spi.IdempotencyStore;
import dev.mcpgate.core.spi.StoredResult;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;
import java.util.zip.GZIPInputStream;
import java.util.zip.GZIPOutputStream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.core.SdkBytes;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeDefinition;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.BillingMode;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;
import software.amazon.awssdk.services.dynamodb.model.CreateTableRequest;
import software.amazon.awssdk.services.dynamodb.model.DynamoDbException;
import software.amazon.awssdk.services.dynamodb.model.KeySchemaElement;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.PutItemRequest;
import software.amazon.awssdk.services.dynamodb.model.PutItemResponse;
import software.amazon.awssdk.services.dynamodb.model.ResourceInUseException;
import software.amazon.awssdk.services.dynamodb.model.ResourceNotFoundException;
import software.amazon.awssdk.services.dynamodb.model.ReturnValue;
import software.amazon.awssdk.services.dynamodb.model.ReturnValuesOnConditionCheckFailure;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;
import software.amazon.awssdk.services.dynamodb.model.ScanRequest;
import software.amazon.awssdk.services.dynamodb.model.ScanResponse;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemResponse;

/**
 * The DynamoDB store: one item per claim, claimed with one conditional {@code PutItem}.
 *
 * <pre>{@code
 * DynamoDbIdempotencyStore store = DynamoDbIdempotencyStore.builder(dynamoDbClient)
 *     .tableName("mcpgate_claims")          // default
 *     .leaseSafetyMargin(Duration.ofSeconds(1))
 *     .build();
 * store.createTableIfMissing();             // for tests and first-time users
 * }</pre>
 *
 * <ul>
 *   <li>Claim: one {@code PutItem} whose condition lets it through only when the item is absent,
 *       expired, or in progress (or unknown) with the same argument hash and an expired lease. It
 *       asks for {@code ReturnValuesOnConditionCheckFailure=ALL_OLD}, so a replay or a conflict
 *       costs one request; against a server that does not return the old item, one strongly
 *       consistent {@code GetItem} follows.</li>
 *   <li>complete, release, extend and mark-unknown are conditional on the lease token.</li>
 *   <li>Expiry is enforced in the condition and on read, never left to DynamoDB's TTL deletion,
 *       which is lazy (up to days). Each item carries an epoch-seconds {@code ttl} attribute so
 *       that DynamoDB removes it eventually.</li>
 *   <li>DynamoDB has no server clock in expressions, so times come from this process's
 *       {@link Clock}. Servers that share a table must keep their clocks close (NTP);
 *       {@link Builder#leaseSafetyMargin} is how much skew a takeover tolerates: a lease (or a
 *       row) counts as expired only that long after its recorded end.</li>
 *   <li>Items are limited to 400 KB: a result over {@link #MAX_RESULT_BYTES} (after optional
 *       compression) is refused with {@link ResultTooLargeException}; the gate then fences the
 *       key instead of freeing it.</li>
 *   <li>Throttling and service errors fail closed as {@link StoreUnavailableException}, after the
 *       SDK's own retry policy (configure it on the client).</li>
 * </ul>
 */
public final class DynamoDbIdempotencyStore implements IdempotencyStore {
  /** The largest stored result (after compression) that fits an item with room to spare. */
  public static final int MAX_RESULT_BYTES = 350_000;

  private static final Logger LOG = LoggerFactory.getLogger(DynamoDbIdempotencyStore.class);
  private static final int COMPRESS_OVER = 1024;
  private static final java.util.Set<String> NOTICED =
      java.util.concurrent.ConcurrentHashMap.newKeySet();

  static final String TENANT = "tenant";
  static final String TOOL = "tool";
  static final String KEY = "idem_key";
  static final String HASH = "args_hash";
  static final String STATE = "state";
  static final String TOKEN = "lease_token";
  static final String ATTEMPT = "attempt";
  static final String CREATED = "created_at";
  static final String LEASE = "lease_expires_at";
  static final String EXPIRES = "expires_at";
  static final String COMPLETED = "completed_at";
  static final String KIND = "result_kind";
  static final String RESULT = "result";
  static final String ENCODING = "result_encoding";

  private final DynamoDbClient client;
  private final String table;
  private final String partitionKey;
  private final String partitionPrefix;
  private final String sortKey;
  private final String sortKeyValue;
  private final String ttlAttribute;
  private final Clock clock;
  private final long marginMs;
  private final boolean compress;
  private volatile boolean oldItemOnFailure = true;

  private DynamoDbIdempotencyStore(Builder b) {
    this.client = b.client;
    this.table = b.table;
    this.partitionKey = b.partitionKey;
    this.partitionPrefix = b.partitionPrefix;
    this.sortKey = b.sortKey;
    this.sortKeyValue = b.sortKeyValue;
    this.ttlAttribute = b.ttlAttribute;
    this.clock = b.clock;
    this.marginMs = b.margin.toMillis();
    this.compress = b.compress;
  }

  /**
   * @param client the DynamoDB client (its retry policy applies to every request)
   * @return a builder
   */
  public static Builder builder(DynamoDbClient client) {
    return new Builder(notNull(client, "client"));
  }

  /** @return the table's name */
  public String tableName() {
    return table;
  }

  /**
   * @return true when the server returned the old item on a failed condition (one request per
   *     replay); false after a server showed it does not (then a GetItem follows)
   */
  public boolean returnsOldItemOnConditionFailure() {
    return oldItemOnFailure;
  }

  // ------------------------------------------------------------------ keys and items

  String partitionValue(ClaimId id) {
    return partitionPrefix + id.tenant().length() + ":" + id.tenant() + "|" + id.tool().length()
        + ":" + id.tool() + "|" + id.key();
  }

  private Map<String, AttributeValue> key(ClaimId id) {
    Map<String, AttributeValue> key = new HashMap<>();
    key.put(partitionKey, s(partitionValue(id)));
    if (sortKey != null) {
      key.put(sortKey, s(sortKeyValue));
    }
    return key;
  }

  private static AttributeValue s(String value) {
    return AttributeValue.builder().s(value).build();
  }

  private static AttributeValue n(long value) {
    return AttributeValue.builder().n(Long.toString(value)).build();
  }

  static long ttlSeconds(long expiresAtMs) {
    return Math.floorDiv(expiresAtMs + 999, 1000);
  }

  private ClaimRecord read(Map<String, AttributeValue> item) {
    ClaimState state = ClaimState.valueOf(item.get(STATE).s());
    StoredResult result = null;
    if (state == ClaimState.COMPLETED && item.containsKey(KIND)) {
      byte[] body = item.containsKey(RESULT) ? item.get(RESULT).b().asByteArray() : new byte[0];
      if (item.containsKey(ENCODING) && "gzip".equals(item.get(ENCODING).s())) {
        body = gunzip(body);
      }
      result = new StoredResult(StoredResult.Kind.valueOf(item.get(KIND).s()), body);
    }
    return new ClaimRecord(
        new ClaimId(item.get(TENANT).s(), item.get(TOOL).s(), item.get(KEY).s()),
        item.get(HASH).s(),
        state,
        new LeaseToken(item.get(TOKEN).s()),
        Integer.parseInt(item.get(ATTEMPT).n()),
        Instant.ofEpochMilli(Long.parseLong(item.get(CREATED).n())),
        Instant.ofEpochMilli(Long.parseLong(item.get(LEASE).n())),
        Instant.ofEpochMilli(Long.parseLong(item.get(EXPIRES).n())),
        state == ClaimState.COMPLETED && item.containsKey(COMPLETED)
            ? Instant.ofEpochMilli(Long.parseLong(item.get(COMPLETED).n())) : null,
        result);
  }

  private <T> T call(String what, Supplier<T> request) {
    try {
      return request.get();
    } catch (ResourceNotFoundException e) {
      throw new StoreUnavailableException("DynamoDB table " + table + " does not exist ("
          + e.getMessage() + "); create it with store.createTableIfMissing() or as docs/stores.md"
          + " shows", e);
    } catch (ConditionalCheckFailedException e) {
      throw e;
    } catch (SdkException e) {
      throw new StoreUnavailableException("could not " + what + " in DynamoDB table " + table
          + ": " + e.getMessage(), e);
    }
  }

  // ------------------------------------------------------------------ the claim

  @Override
  public ClaimAttempt claim(ClaimRequest r) {
    notNull(r, "request");
    for (int round = 0; round < 5; round++) {
      long now = clock.millis();
      Map<String, AttributeValue> item = new HashMap<>(key(r.id()));
      item.put(TENANT, s(r.id().tenant()));
      item.put(TOOL, s(r.id().tool()));
      item.put(KEY, s(r.id().key()));
      item.put(HASH, s(r.argsHash()));
      item.put(STATE, s(ClaimState.IN_PROGRESS.name()));
      item.put(TOKEN, s(r.token().value()));
      item.put(ATTEMPT, n(1));
      item.put(CREATED, n(now));
      item.put(LEASE, n(now + r.lease().toMillis()));
      long expires = now + r.retention().toMillis();
      item.put(EXPIRES, n(expires));
      item.put(ttlAttribute, n(ttlSeconds(expires)));
      Map<String, String> names = Map.of("#pk", partitionKey, "#exp", EXPIRES, "#state", STATE,
          "#lease", LEASE, "#hash", HASH);
      // the row and the lease count as over only the safety margin after their recorded end
      Map<String, AttributeValue> values = Map.of(":cutoff", n(now - marginMs),
          ":completed", s(ClaimState.COMPLETED.name()),
          ":hash", s(r.argsHash()));
      PutItemRequest.Builder put = PutItemRequest.builder().tableName(table).item(item)
          .conditionExpression("attribute_not_exists(#pk) OR #exp <= :cutoff"
              + " OR (#state <> :completed AND #lease <= :cutoff AND #hash = :hash)")
          .expressionAttributeNames(names).expressionAttributeValues(values)
          .returnValues(ReturnValue.ALL_OLD);
      if (oldItemOnFailure) {
        put.returnValuesOnConditionCheckFailure(ReturnValuesOnConditionCheckFailure.ALL_OLD);
      }
      Map<String, AttributeValue> old;
      try {
        PutItemResponse response = call("claim " + r.id(), () -> client.putItem(put.build()));
        old = response.attributes();
      } catch (ConditionalCheckFailedException e) {
        Map<String, AttributeValue> existing = e.hasItem() ? e.item() : null;
        if (existing == null || existing.isEmpty()) {
          if (oldItemOnFailure) {
            oldItemOnFailure = false;
            if (NOTICED.add(table)) {
              LOG.info("DynamoDB server at table {} did not return the old item on a failed"
                  + " condition; replays will cost a GetItem more", table);
            }
          }
          existing = getItem(r.id());
          if (existing == null) {
            continue; // released or purged since: claim again
          }
        }
        return new ClaimAttempt.Existing(read(existing), Instant.ofEpochMilli(now));
      }
      int attempt = 1;
      if (old != null && !old.isEmpty() && Long.parseLong(old.get(EXPIRES).n()) > now - marginMs) {
        // a takeover of a live row's expired lease: one more request, only on this rare path
        attempt = Integer.parseInt(old.get(ATTEMPT).n()) + 1;
        int next = attempt;
        boolean ok = update(r.id(), r.token(), "SET #attempt = :attempt", Map.of("#attempt", ATTEMPT),
            Map.of(":attempt", n(next)), "#token = :token", "count the takeover of");
        if (!ok) {
          continue; // taken over again in between: claim anew
        }
        item.put(ATTEMPT, n(next));
      }
      return new ClaimAttempt.Acquired(read(item), Instant.ofEpochMilli(now));
    }
    throw new StoreUnavailableException("claim of " + r.id() + " in DynamoDB table " + table
        + " found neither a free key nor an item in 5 rounds", null);
  }

  private Map<String, AttributeValue> getItem(ClaimId id) {
    Map<String, AttributeValue> item = call("read " + id, () -> client.getItem(g -> g
        .tableName(table).key(key(id)).consistentRead(true))).item();
    return item == null || item.isEmpty() ? null : item;
  }

  /** A conditional UpdateItem on the token; false when the condition failed. */
  private boolean update(ClaimId id, LeaseToken token, String expression, Map<String, String> names,
      Map<String, AttributeValue> values, String condition, String what) {
    return updateReturning(id, token, expression, names, values, condition, what) != null;
  }

  private Map<String, AttributeValue> updateReturning(ClaimId id, LeaseToken token,
      String expression, Map<String, String> names, Map<String, AttributeValue> values,
      String condition, String what) {
    // DynamoDB refuses names and values that the expressions do not use: pass only used ones
    String text = expression + " " + condition;
    Map<String, String> allNames = new HashMap<>(names);
    allNames.put("#token", TOKEN);
    allNames.put("#state", STATE);
    allNames.keySet().removeIf(name -> !mentions(text, name));
    Map<String, AttributeValue> allValues = new HashMap<>(values);
    allValues.put(":token", s(token.value()));
    allValues.keySet().removeIf(name -> !mentions(text, name));
    try {
      UpdateItemResponse response = call(what + " " + id, () -> client.updateItem(u -> u
          .tableName(table).key(key(id)).updateExpression(expression)
          .conditionExpression(condition).expressionAttributeNames(allNames)
          .expressionAttributeValues(allValues).returnValues(ReturnValue.ALL_NEW)));
      return response.attributes();
    } catch (ConditionalCheckFailedException e) {
      return null;
    }
  }

  /** @return true when text uses the placeholder (followed by a non-name character or the end) */
  private static boolean mentions(String text, String placeholder) {
    int from = 0;
    while (true) {
      int at = text.indexOf(placeholder, from);
      if (at < 0) {
        return false;
      }
      int end = at + placeholder.length();
      if (end == text.length() || !Character.isLetterOrDigit(text.charAt(end))) {
        return true;
      }
      from = end;
    }
  }

  // ------------------------------------------------------------------ token-checked writes

  @Override
  public boolean complete(ClaimId id, LeaseToken token, StoredResult result, Duration retention) {
    notNull(result, "result");
    Checks.positiveMillis(retention, "retention");
    byte[] body = result.body();
    boolean gzip = compress && body.length > COMPRESS_OVER;
    if (gzip) {
      body = gzip(body);
    }
    if (body.length > MAX_RESULT_BYTES) {
      throw new ResultTooLargeException("the result of " + id + " is " + body.length
          + " bytes" + (gzip ? " compressed" : "") + ", over the " + MAX_RESULT_BYTES
          + " bytes that fit in a DynamoDB item (400 KB at most)", body.length, MAX_RESULT_BYTES);
    }
    long now = clock.millis();
    long expires = now + retention.toMillis();
    Map<String, String> names = new HashMap<>(Map.of("#completedAt", COMPLETED, "#exp", EXPIRES,
        "#ttl", ttlAttribute, "#kind", KIND, "#result", RESULT, "#enc", ENCODING));
    Map<String, AttributeValue> values = new HashMap<>(Map.of(":completed",
        s(ClaimState.COMPLETED.name()), ":now", n(now), ":exp", n(expires),
        ":ttl", n(ttlSeconds(expires)), ":kind", s(result.kind().name())));
    StringBuilder set = new StringBuilder("SET #state = :completed, #completedAt = :now,"
        + " #exp = :exp, #ttl = :ttl, #kind = :kind");
    List<String> remove = new ArrayList<>();
    if (body.length > 0) {
      set.append(", #result = :result");
      values.put(":result", AttributeValue.builder().b(SdkBytes.fromByteArrayUnsafe(body)).build());
    } else {
      remove.add("#result");
    }
    if (gzip) {
      set.append(", #enc = :enc");
      values.put(":enc", s("gzip"));
    } else {
      remove.add("#enc");
    }
    String expression = set + (remove.isEmpty() ? "" : " REMOVE " + String.join(", ", remove));
    return update(id, token, expression, names, values,
        "#token = :token AND #state <> :completed", "complete");
  }

  @Override
  public boolean release(ClaimId id, LeaseToken token) {
    try {
      call("release " + id, () -> client.deleteItem(d -> d.tableName(table).key(key(id))
          .conditionExpression("#token = :token AND #state <> :completed")
          .expressionAttributeNames(Map.of("#token", TOKEN, "#state", STATE))
          .expressionAttributeValues(Map.of(":token", s(token.value()),
              ":completed", s(ClaimState.COMPLETED.name())))));
      return true;
    } catch (ConditionalCheckFailedException e) {
      return false;
    }
  }

  @Override
  public boolean extendLease(ClaimId id, LeaseToken token, Duration lease) {
    Checks.positiveMillis(lease, "lease");
    long leaseEnd = clock.millis() + lease.toMillis();
    Map<String, AttributeValue> after = updateReturning(id, token, "SET #lease = :lease",
        Map.of("#lease", LEASE), Map.of(":lease", n(leaseEnd),
            ":inProgress", s(ClaimState.IN_PROGRESS.name())),
        "#token = :token AND #state = :inProgress", "extend the lease of");
    if (after == null) {
      return false;
    }
    if (Long.parseLong(after.get(EXPIRES).n()) < leaseEnd) {
      // the item must outlive its lease: move its expiry too (rare: a lease beyond retention)
      update(id, token, "SET #exp = :exp, #ttl = :ttl", Map.of("#exp", EXPIRES, "#ttl", ttlAttribute),
          Map.of(":exp", n(leaseEnd), ":ttl", n(ttlSeconds(leaseEnd))), "#token = :token",
          "extend the expiry of");
    }
    return true;
  }

  @Override
  public boolean markUnknown(ClaimId id, LeaseToken token) {
    return update(id, token, "SET #state = :unknown", Map.of(),
        Map.of(":unknown", s(ClaimState.UNKNOWN.name()),
            ":inProgress", s(ClaimState.IN_PROGRESS.name())),
        "#token = :token AND #state = :inProgress", "mark unknown");
  }

  @Override
  public Optional<ClaimRecord> find(ClaimId id) {
    notNull(id, "id");
    return Optional.ofNullable(getItem(id)).map(this::read);
  }

  /**
   * Deletes at most {@code limit} expired items, found by a Scan. DynamoDB's TTL deletion is the
   * everyday way to clean the table; this is for tables without TTL enabled and for tests. Each
   * delete is conditional on the item still being expired.
   */
  @Override
  public int purgeExpired(int limit) {
    if (limit < 1) {
      throw new IllegalArgumentException("limit must be at least 1, was " + limit);
    }
    long cutoff = clock.millis() - marginMs;
    int deleted = 0;
    Map<String, AttributeValue> start = null;
    do {
      Map<String, AttributeValue> from = start;
      ScanResponse page = call("scan for expired items", () -> client.scan(ScanRequest.builder()
          .tableName(table).filterExpression("#exp <= :cutoff")
          .expressionAttributeNames(Map.of("#exp", EXPIRES))
          .expressionAttributeValues(Map.of(":cutoff", n(cutoff)))
          .exclusiveStartKey(from).build()));
      for (Map<String, AttributeValue> item : page.items()) {
        if (deleted >= limit) {
          return deleted;
        }
        Map<String, AttributeValue> key = new HashMap<>();
        key.put(partitionKey, item.get(partitionKey));
        if (sortKey != null) {
          key.put(sortKey, item.get(sortKey));
        }
        try {
          call("purge", () -> client.deleteItem(d -> d.tableName(table).key(key)
              .conditionExpression("#exp <= :cutoff")
              .expressionAttributeNames(Map.of("#exp", EXPIRES))
              .expressionAttributeValues(Map.of(":cutoff", n(cutoff)))));
          deleted++;
        } catch (ConditionalCheckFailedException taken) {
          // claimed again since the scan read it
        }
      }
      start = page.hasLastEvaluatedKey() && !page.lastEvaluatedKey().isEmpty()
          ? page.lastEvaluatedKey() : null;
    } while (start != null && deleted < limit);
    return deleted;
  }

  @Override
  public Instant now() {
    return Instant.ofEpochMilli(clock.millis());
  }

  // ------------------------------------------------------------------ table

  /**
   * Creates the table if it does not exist (on-demand billing, the configured key schema), waits
   * until it is active, and enables TTL on the TTL attribute ({@code ttl} by default). For tests and first-time
   * users; production tables are better made by infrastructure code (docs/stores.md).
   */
  public void createTableIfMissing() {
    List<KeySchemaElement> keys = new ArrayList<>();
    List<AttributeDefinition> attributes = new ArrayList<>();
    keys.add(KeySchemaElement.builder().attributeName(partitionKey).keyType(KeyType.HASH).build());
    attributes.add(AttributeDefinition.builder().attributeName(partitionKey)
        .attributeType(ScalarAttributeType.S).build());
    if (sortKey != null) {
      keys.add(KeySchemaElement.builder().attributeName(sortKey).keyType(KeyType.RANGE).build());
      attributes.add(AttributeDefinition.builder().attributeName(sortKey)
          .attributeType(ScalarAttributeType.S).build());
    }
    try {
      client.createTable(CreateTableRequest.builder().tableName(table).keySchema(keys)
          .attributeDefinitions(attributes).billingMode(BillingMode.PAY_PER_REQUEST).build());
    } catch (ResourceInUseException exists) {
      // already there
    } catch (SdkException e) {
      throw new StoreUnavailableException("could not create DynamoDB table " + table + ": "
          + e.getMessage(), e);
    }
    call("wait for table " + table, () -> client.waiter().waitUntilTableExists(w -> w.tableName(table)));
    try {
      client.updateTimeToLive(u -> u.tableName(table).timeToLiveSpecification(t -> t
          .attributeName(ttlAttribute).enabled(true)));
    } catch (DynamoDbException e) {
      String message = e.getMessage() == null ? "" : e.getMessage();
      if (!message.contains("already enabled")) {
        LOG.warn("could not enable TTL on DynamoDB table {} ({}); expired items stay until"
            + " purgeExpired removes them", table, message);
      }
    }
  }

  // ------------------------------------------------------------------ compression

  private static byte[] gzip(byte[] body) {
    ByteArrayOutputStream out = new ByteArrayOutputStream(body.length / 2 + 64);
    try (GZIPOutputStream z = new GZIPOutputStream(out)) {
      z.write(body);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out.toByteArray();
  }

  private static byte[] gunzip(byte[] body) {
    try (GZIPInputStream z = new GZIPInputStream(new ByteArrayInputStream(body))) {
      return z.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException("stored result is not valid gzip", e);
    }
  }

  /** Builds a DynamoDB store; every setter checks its argument. */
  public static final class Builder {
    private final DynamoDbClient client;
    private String table = "mcpgate_claims";
    private String partitionKey = "pk";
    private String partitionPrefix = "";
    private String sortKey;
    private String sortKeyValue;
    private String ttlAttribute = "ttl";
    private Clock clock = Clock.systemUTC();
    private Duration margin = Duration.ofSeconds(1);
    private boolean compress;

    private Builder(DynamoDbClient client) {
      this.client = client;
    }

    /** @param table the table name; {@code mcpgate_claims} by default */
    public Builder tableName(String table) {
      this.table = nonBlank(table, "table");
      return this;
    }

    /** @param attribute the partition key attribute; {@code pk} by default */
    public Builder partitionKey(String attribute) {
      this.partitionKey = nonBlank(attribute, "attribute");
      return this;
    }

    /**
     * Single-table layouts: a prefix for the partition key value (for example {@code "GATE#"}),
     * so that claims live beside other items.
     */
    public Builder partitionKeyPrefix(String prefix) {
      this.partitionPrefix = notNull(prefix, "prefix");
      return this;
    }

    /**
     * Single-table layouts: the table's sort key attribute and the static value claims use in it
     * (for example {@code "sk"} and {@code "IDEMPOTENCY"}).
     */
    public Builder sortKey(String attribute, String value) {
      this.sortKey = nonBlank(attribute, "attribute");
      this.sortKeyValue = nonBlank(value, "value");
      return this;
    }

    /**
     * @param attribute the epoch-seconds attribute DynamoDB's TTL deletes items by; {@code ttl}
     *     by default (single-table layouts often have their own)
     */
    public Builder ttlAttribute(String attribute) {
      this.ttlAttribute = nonBlank(attribute, "attribute");
      return this;
    }

    /** @param clock the clock for expiry and lease decisions; the system clock by default */
    public Builder clock(Clock clock) {
      this.clock = notNull(clock, "clock");
      return this;
    }

    /**
     * @param margin how long after its recorded end a lease (or a row) still counts as alive, to
     *     tolerate clock skew between servers; 1 s by default, zero or more
     */
    public Builder leaseSafetyMargin(Duration margin) {
      this.margin = Checks.notNegative(margin, "margin");
      return this;
    }

    /** @param compress true to gzip stored results over 1 KB (off by default) */
    public Builder compressResults(boolean compress) {
      this.compress = compress;
      return this;
    }

    /** @return the store; makes no request */
    public DynamoDbIdempotencyStore build() {
      if (sortKey != null && sortKey.equals(partitionKey)) {
        throw new IllegalArgumentException("sort key attribute \"" + sortKey
            + "\" must differ from the partition key attribute");
      }
      return new DynamoDbIdempotencyStore(this);
    }

    private static String nonBlank(String value, String name) {
      notNull(value, name);
      if (value.isBlank()) {
        throw new IllegalArgumentException(name + " must not be blank");
      }
      return value;
    }
  }
}
