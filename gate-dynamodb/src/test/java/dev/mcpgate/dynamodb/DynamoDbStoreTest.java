package dev.mcpgate.dynamodb;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.mcpgate.core.ClaimId;
import dev.mcpgate.core.FailureReason;
import dev.mcpgate.core.GateOutcomeException;
import dev.mcpgate.core.GatePolicy;
import dev.mcpgate.core.GateResult;
import dev.mcpgate.core.IdempotencyGate;
import dev.mcpgate.core.LeaseToken;
import dev.mcpgate.core.RefusalReason;
import dev.mcpgate.core.ResultMapper;
import dev.mcpgate.core.StoreUnavailableException;
import dev.mcpgate.core.ToolCall;
import dev.mcpgate.core.spi.ClaimAttempt;
import dev.mcpgate.core.spi.ClaimRequest;
import dev.mcpgate.core.spi.ExtendedLeases;
import dev.mcpgate.core.spi.HeldLease;
import dev.mcpgate.core.spi.IdempotencyStore;
import dev.mcpgate.store.tck.GateResults;
import dev.mcpgate.store.tck.IdempotencyStoreContract;
import dev.mcpgate.store.tck.MutableClock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemRequest;

/**
 * The store contract on a real DynamoDB-API server, plus what only DynamoDB promises: request
 * counts, the clock-skew margin, compression and the 400 KB item limit, the single-table layout.
 * The store's clock is injected (DynamoDB has no server clock), so expiry needs no sleeping.
 */
class DynamoDbStoreTest extends IdempotencyStoreContract {
  static final String TABLE = "mcpgate_claims_test";
  private static volatile boolean tableReady;

  private final MutableClock clock = new MutableClock(Instant.parse("2030-01-01T00:00:00Z"));
  private final TestDynamo.RequestCounter counter = new TestDynamo.RequestCounter();
  private DynamoDbClient client;

  @Override
  protected IdempotencyStore createStore() {
    client = TestDynamo.client(counter);
    DynamoDbIdempotencyStore s =
        DynamoDbIdempotencyStore.builder(client)
            .tableName(TABLE)
            .clock(clock)
            .leaseSafetyMargin(Duration.ZERO)
            .createSchemaIfMissing(!tableReady)
            .build();
    tableReady = true;
    return s;
  }

  @Override
  protected void closeStore() {
    if (store != null) {
      ((DynamoDbIdempotencyStore) store).close();
    }
    if (client != null) {
      client.close();
    }
  }

  @Override
  protected void elapse(Duration d) {
    clock.advance(d);
  }

  @Test
  void freshCallCostsTwoRequestsAndReplayOneWhereTheServerReturnsTheOldItem() {
    IdempotencyGate gate = IdempotencyGate.builder(store).build();
    ToolCall call = call("count", Map.of("order_id", "ord_9f2"));

    counter.requests.set(0);
    gate.execute(call, ResultMapper.utf8(), ctx -> "refund-1");
    int fresh = counter.requests.get();
    counter.requests.set(0);
    gate.execute(call, ResultMapper.utf8(), ctx -> "refund-2");
    int replay = counter.requests.get();

    assertThat(fresh).isEqualTo(2);
    boolean oldItem = ((DynamoDbIdempotencyStore) store).returnsOldItemOnConditionFailure();
    assertThat(replay).as("server returns the old item: %s", oldItem).isEqualTo(oldItem ? 1 : 2);
  }

  @Test
  void aTakeoverCostsThreeRequestsOrFourWhereTheServerKeepsTheOldItem() {
    ToolCall call = call("count-takeover", Map.of("order_id", "ord_9f2"));
    IdempotencyGate.builder(store)
        .policy(GatePolicy.builder().lease(Duration.ofSeconds(1)).build())
        .build()
        .claim(call);
    clock.advance(Duration.ofSeconds(2));

    counter.requests.set(0);
    GateResult<String> result =
        IdempotencyGate.builder(store)
            .build()
            .execute(call, ResultMapper.utf8(), ctx -> "takeover=" + ctx.isTakeover());

    assertThat(((GateResult.Executed<String>) result).value()).isEqualTo("takeover=true");
    boolean oldItem = ((DynamoDbIdempotencyStore) store).returnsOldItemOnConditionFailure();
    // the refused PutItem (and a GetItem where the old item is not returned), the takeover
    // UpdateItem, the completion
    assertThat(counter.requests.get())
        .as("server returns the old item: %s", oldItem)
        .isEqualTo(oldItem ? 3 : 4);
  }

  @Test
  void leaseSafetyMarginDelaysTakeoverByTheMargin() {
    DynamoDbIdempotencyStore skewed =
        DynamoDbIdempotencyStore.builder(client)
            .tableName(TABLE)
            .clock(clock)
            .leaseSafetyMargin(Duration.ofSeconds(2))
            .build();
    ClaimId id = id("skew");
    skewed.claim(new ClaimRequest(id, "v1:a", LeaseToken.random(), Duration.ofSeconds(10), LONG));

    clock.advance(Duration.ofSeconds(11));
    assertThat(skewed.claim(new ClaimRequest(id, "v1:a", LeaseToken.random(), LONG, LONG)))
        .isInstanceOf(ClaimAttempt.Existing.class);
    clock.advance(Duration.ofSeconds(1));
    assertThat(skewed.claim(new ClaimRequest(id, "v1:a", LeaseToken.random(), LONG, LONG)))
        .isInstanceOf(ClaimAttempt.Acquired.class);
  }

  @Test
  void itemCarriesAnEpochSecondsTtlMatchingItsExpiry() {
    IdempotencyGate gate =
        IdempotencyGate.builder(store)
            .policy(GatePolicy.builder().retention(Duration.ofHours(2)).build())
            .build();
    ToolCall call = call("ttl", Map.of());
    gate.execute(call, ResultMapper.utf8(), ctx -> "sent");

    DynamoDbIdempotencyStore dynamo = (DynamoDbIdempotencyStore) store;
    Map<String, AttributeValue> item =
        client
            .getItem(
                g ->
                    g.tableName(TABLE)
                        .consistentRead(true)
                        .key(
                            Map.of(
                                "pk",
                                AttributeValue.builder()
                                    .s(dynamo.partitionValue(call.id()))
                                    .build())))
            .item();
    long expiresMs = Long.parseLong(item.get("expires_at").n());
    assertThat(expiresMs).isEqualTo(clock.millis() + Duration.ofHours(2).toMillis());
    assertThat(Long.parseLong(item.get("ttl").n())).isEqualTo((expiresMs + 999) / 1000);
    assertThat(item.get("idem_key").s()).isEqualTo("ttl");
  }

  @Test
  void compressionLetsLargeCompressibleResultsFitAndReadsThemBack() {
    DynamoDbIdempotencyStore compressing =
        DynamoDbIdempotencyStore.builder(client)
            .tableName(TABLE)
            .clock(clock)
            .leaseSafetyMargin(Duration.ZERO)
            .compressResults(true)
            .build();
    GatePolicy policy = GatePolicy.builder().maxResultBytes(2_000_000).build();
    IdempotencyGate plain = IdempotencyGate.builder(store).policy(policy).build();
    IdempotencyGate gz = IdempotencyGate.builder(compressing).policy(policy).build();
    String big = "{\"rows\":\"" + "row of a large report; ".repeat(40_000) + "\"}";
    AtomicInteger runs = new AtomicInteger();

    assertThatThrownBy(
            () ->
                GateResults.failed(
                        plain.execute(
                            call("big-plain", Map.of()),
                            ResultMapper.utf8(),
                            ctx -> {
                              runs.incrementAndGet();
                              return big;
                            }),
                        FailureReason.RESULT_TOO_LARGE)
                    .orThrow())
        .isInstanceOf(GateOutcomeException.class)
        .hasMessageContaining("400 KB")
        .hasMessageContaining(String.valueOf(DynamoDbIdempotencyStore.MAX_RESULT_BYTES));
    assertThat(plain.execute(call("big-plain", Map.of()), ResultMapper.utf8(), ctx -> "again"))
        .isInstanceOfSatisfying(
            GateResult.Refused.class,
            r -> assertThat(r.reason()).isEqualTo(RefusalReason.RESULT_NOT_STORED));
    assertThat(runs).hasValue(1);

    gz.execute(call("big-gz", Map.of()), ResultMapper.utf8(), ctx -> big);
    assertThat(gz.execute(call("big-gz", Map.of()), ResultMapper.utf8(), ctx -> "x"))
        .isInstanceOfSatisfying(
            GateResult.Replayed.class, r -> assertThat(r.value()).isEqualTo(big));
  }

  @Test
  void singleTableLayoutKeepsClaimsUnderAPrefixAndStaticSortKey() {
    String table = "mcpgate_single_table_test";
    DynamoDbIdempotencyStore single =
        DynamoDbIdempotencyStore.builder(client)
            .tableName(table)
            .partitionKey("PK")
            .partitionKeyPrefix("GATE#")
            .sortKey("SK", "IDEMPOTENCY")
            .ttlAttribute("expires_epoch")
            .clock(clock)
            .leaseSafetyMargin(Duration.ZERO)
            .createSchemaIfMissing(true)
            .build();
    IdempotencyGate gate = IdempotencyGate.builder(single).build();
    AtomicInteger runs = new AtomicInteger();
    ToolCall call = call("single", Map.of("a", 1));

    gate.execute(call, ResultMapper.utf8(), ctx -> "r" + runs.incrementAndGet());
    GateResult<String> again =
        gate.execute(call, ResultMapper.utf8(), ctx -> "r" + runs.incrementAndGet());

    assertThat(runs).hasValue(1);
    assertThat(again).isInstanceOf(GateResult.Replayed.class);
    Map<String, AttributeValue> item =
        client
            .getItem(
                g ->
                    g.tableName(table)
                        .consistentRead(true)
                        .key(
                            Map.of(
                                "PK",
                                AttributeValue.builder()
                                    .s(single.partitionValue(call.id()))
                                    .build(),
                                "SK",
                                AttributeValue.builder().s("IDEMPOTENCY").build())))
            .item();
    assertThat(item.get("PK").s()).startsWith("GATE#");
    assertThat(item).containsKey("expires_epoch").doesNotContainKey("ttl");
    assertThat(single.find(call.id())).isPresent();
  }

  private static AttributeValue str(String v) {
    return AttributeValue.builder().s(v).build();
  }

  private static AttributeValue num(long v) {
    return AttributeValue.builder().n(Long.toString(v)).build();
  }

  @Test
  void purgeOnASharedTableDeletesOnlyTheGatesOwnExpiredItems() {
    String table = "mcpgate_single_table_test";
    DynamoDbIdempotencyStore single =
        DynamoDbIdempotencyStore.builder(client)
            .tableName(table)
            .partitionKey("PK")
            .partitionKeyPrefix("GATE#")
            .sortKey("SK", "IDEMPOTENCY")
            .clock(clock)
            .leaseSafetyMargin(Duration.ZERO)
            .createSchemaIfMissing(true)
            .build();
    String order = "ORDER#" + tenant;
    String look = "GATE#lookalike-" + tenant;
    // an application's items: an epoch-seconds expires_at of their own, one even under the prefix
    client.putItem(
        p ->
            p.tableName(table)
                .item(
                    Map.of(
                        "PK",
                        str(order),
                        "SK",
                        str("META"),
                        "expires_at",
                        num(1_700_000_000L),
                        "state",
                        str("SHIPPED"))));
    client.putItem(
        p ->
            p.tableName(table)
                .item(
                    Map.of(
                        "PK",
                        str(look),
                        "SK",
                        str("IDEMPOTENCY"),
                        "expires_at",
                        num(1_700_000_000L))));
    ClaimId id = id("purge-mine");
    LeaseToken token = LeaseToken.random();
    single.claim(new ClaimRequest(id, "v1:a", token, Duration.ofSeconds(1), Duration.ofSeconds(1)));
    clock.advance(Duration.ofSeconds(2));

    int purged = 0;
    for (int i = 0; i < 20; i++) {
      purged += single.purgeExpired(1000);
    }

    assertThat(purged).isGreaterThanOrEqualTo(1);
    assertThat(single.find(id)).isEmpty();
    assertThat(
            client
                .getItem(
                    g ->
                        g.tableName(table)
                            .consistentRead(true)
                            .key(Map.of("PK", str(order), "SK", str("META"))))
                .item())
        .as("the order")
        .isNotEmpty();
    assertThat(
            client
                .getItem(
                    g ->
                        g.tableName(table)
                            .consistentRead(true)
                            .key(Map.of("PK", str(look), "SK", str("IDEMPOTENCY"))))
                .item())
        .as("the look-alike")
        .isNotEmpty();
  }

  @Test
  void aTakeoverWhoseWriteFailsLeavesTheKeyAsItWasNotHeldByAClaimThatNeverHappened() {
    AtomicBoolean failUpdates = new AtomicBoolean();
    DynamoDbClient flaky =
        TestDynamo.client(
            new ExecutionInterceptor() {
              @Override
              public void beforeTransmission(
                  Context.BeforeTransmission context, ExecutionAttributes attributes) {
                if (failUpdates.get() && context.request() instanceof UpdateItemRequest) {
                  throw SdkClientException.create("the network dropped the takeover");
                }
              }
            });
    try {
      DynamoDbIdempotencyStore store =
          DynamoDbIdempotencyStore.builder(flaky)
              .tableName(TABLE)
              .clock(clock)
              .leaseSafetyMargin(Duration.ZERO)
              .build();
      ClaimId id = id("takeover-fails");
      LeaseToken stale = LeaseToken.random();
      store.claim(new ClaimRequest(id, "v1:a", stale, Duration.ofSeconds(1), LONG));
      clock.advance(Duration.ofSeconds(2));

      failUpdates.set(true);
      assertThatThrownBy(
              () -> store.claim(new ClaimRequest(id, "v1:a", LeaseToken.random(), LONG, LONG)))
          .isInstanceOf(StoreUnavailableException.class);
      assertThat(store.find(id).orElseThrow().token())
          .as("the key is still the stale attempt's," + " free to take over")
          .isEqualTo(stale);

      failUpdates.set(false);
      LeaseToken next = LeaseToken.random();
      assertThat(store.claim(new ClaimRequest(id, "v1:a", next, LONG, LONG)))
          .isInstanceOfSatisfying(
              ClaimAttempt.Acquired.class,
              a -> {
                assertThat(a.record().attempt()).isEqualTo(2);
                assertThat(a.record().token()).isEqualTo(next);
              });
      assertThat(store.find(id).orElseThrow().attempt()).isEqualTo(2);
    } finally {
      flaky.close();
    }
  }

  @Test
  void missingTableFailsClosedNamingIt() {
    DynamoDbIdempotencyStore missing =
        DynamoDbIdempotencyStore.builder(client).tableName("mcpgate_no_such_table").build();
    AtomicInteger runs = new AtomicInteger();

    assertThatThrownBy(
            () ->
                GateResults.failed(
                        IdempotencyGate.builder(missing)
                            .build()
                            .execute(
                                call("k", Map.of()),
                                ResultMapper.utf8(),
                                ctx -> "x" + runs.incrementAndGet()),
                        FailureReason.STORE_UNAVAILABLE)
                    .orThrow())
        .isInstanceOf(GateOutcomeException.class)
        .hasMessageContaining("mcpgate_no_such_table")
        .hasMessageContaining("createSchemaIfMissing(true)");
    assertThat(runs).hasValue(0);
  }

  @Test
  void createSchemaIfMissingCreatesTheTableAtBuildAndOnlyWhenAsked() {
    String table = "mcpgate_created_" + Long.toHexString(System.nanoTime());
    DynamoDbIdempotencyStore.builder(client).tableName(table).build(); // makes no request
    assertThat(client.listTables().tableNames()).doesNotContain(table);

    DynamoDbIdempotencyStore created =
        DynamoDbIdempotencyStore.builder(client)
            .tableName(table)
            .createSchemaIfMissing(true)
            .build();
    assertThat(client.listTables().tableNames()).contains(table);
    AtomicInteger runs = new AtomicInteger();
    try (IdempotencyGate gate = IdempotencyGate.builder(created).build()) {
      gate.execute(
          call("made", Map.of()), ResultMapper.utf8(), ctx -> "x" + runs.incrementAndGet());
    }
    DynamoDbIdempotencyStore again =
        DynamoDbIdempotencyStore.builder(client)
            .tableName(table)
            .createSchemaIfMissing(true)
            .build(); // a table that exists is left as it is, its claims kept
    try (IdempotencyGate gate = IdempotencyGate.builder(again).build()) {
      assertThat(
              gate.execute(
                  call("made", Map.of()), ResultMapper.utf8(), ctx -> "x" + runs.incrementAndGet()))
          .isInstanceOf(GateResult.Replayed.class);
    }
    assertThat(runs).hasValue(1);
    client.deleteTable(b -> b.tableName(table));
  }

  @Test
  void anUnreachableServiceFailsClosedAfterTheSdkRetries() throws Exception {
    int port;
    try (java.net.ServerSocket socket = new java.net.ServerSocket(0)) {
      port = socket.getLocalPort(); // closed again: nothing listens there
    }
    AtomicInteger attempts = new AtomicInteger();
    software.amazon.awssdk.core.interceptor.ExecutionInterceptor countAttempts =
        new software.amazon.awssdk.core.interceptor.ExecutionInterceptor() {
          @Override
          public void beforeTransmission(
              software.amazon.awssdk.core.interceptor.Context.BeforeTransmission context,
              software.amazon.awssdk.core.interceptor.ExecutionAttributes attributes) {
            attempts.incrementAndGet();
          }
        };
    try (DynamoDbClient down =
        DynamoDbClient.builder()
            .endpointOverride(java.net.URI.create("http://127.0.0.1:" + port))
            .region(software.amazon.awssdk.regions.Region.US_EAST_1)
            .credentialsProvider(
                software.amazon.awssdk.auth.credentials.StaticCredentialsProvider.create(
                    software.amazon.awssdk.auth.credentials.AwsBasicCredentials.create("x", "x")))
            .overrideConfiguration(
                c ->
                    c.addExecutionInterceptor(countAttempts)
                        .retryStrategy(software.amazon.awssdk.core.retry.RetryMode.STANDARD))
            .build()) {
      IdempotencyGate gate =
          IdempotencyGate.builder(DynamoDbIdempotencyStore.builder(down).build()).build();
      AtomicInteger runs = new AtomicInteger();

      assertThatThrownBy(
              () ->
                  GateResults.failed(
                          gate.execute(
                              call("k", Map.of()),
                              ResultMapper.utf8(),
                              ctx -> "x" + runs.incrementAndGet()),
                          FailureReason.STORE_UNAVAILABLE)
                      .orThrow())
          .isInstanceOf(GateOutcomeException.class)
          .hasMessageContaining("did not run");
      assertThat(runs).hasValue(0);
      assertThat(attempts.get())
          .as(
              "the claim's tries, with the SDK's standard retries, and one read of the item (an"
                  + " earlier try may have landed), not retried: the last found no server")
          .isEqualTo(4);
    }
  }

  private Map<String, AttributeValue> item(ClaimId id) {
    return client
        .getItem(
            g ->
                g.tableName(TABLE)
                    .consistentRead(true)
                    .key(Map.of("pk", str(((DynamoDbIdempotencyStore) store).partitionValue(id)))))
        .item();
  }

  private static long expiresOf(Map<String, AttributeValue> item) {
    return Long.parseLong(item.get("expires_at").n());
  }

  private static long ttlOf(Map<String, AttributeValue> item) {
    return Long.parseLong(item.get("ttl").n());
  }

  @Test
  void noWriteOfAnExtensionTouchesACompletedOrUnknownItemNorItsRetention() {
    DynamoDbIdempotencyStore dynamo = (DynamoDbIdempotencyStore) store;
    Duration shortRetention = Duration.ofSeconds(30);
    // completed: a renewal still in flight must not cut the retention down to a lease
    ClaimId completed = id("extend-completed");
    LeaseToken token = LeaseToken.random();
    dynamo.claim(new ClaimRequest(completed, "v1:a", token, shortRetention, shortRetention));
    assertThat(dynamo.complete(completed, token, value("done"), LONG)).isTrue();
    // unknown: fenced for its fence, not for a lease
    ClaimId unknown = id("extend-unknown");
    LeaseToken unknownToken = LeaseToken.random();
    dynamo.claim(new ClaimRequest(unknown, "v1:a", unknownToken, shortRetention, shortRetention));
    assertThat(dynamo.markUnknown(unknown, unknownToken, LONG)).isTrue();
    Map<String, AttributeValue> completedBefore = item(completed);
    Map<String, AttributeValue> unknownBefore = item(unknown);
    long leaseEnd = clock.millis() + Duration.ofMinutes(5).toMillis();
    assertThat(leaseEnd)
        .as("the extension would lower the expiry")
        .isLessThan(expiresOf(completedBefore))
        .isLessThan(expiresOf(unknownBefore));

    assertThat(dynamo.setLeaseAndRaiseExpiry(completed, token, leaseEnd)).isFalse();
    assertThat(dynamo.setLeaseAndRaiseExpiry(unknown, unknownToken, leaseEnd)).isFalse();
    assertThat(dynamo.extendLease(completed, token, Duration.ofMinutes(5))).isFalse();
    ExtendedLeases answer =
        dynamo.extendLeases(
            List.of(new HeldLease(completed, token), new HeldLease(unknown, unknownToken)),
            Duration.ofMinutes(5),
            RENEWAL_DEADLINE);
    assertThat(answer.extended()).isEmpty();
    assertThat(answer.undecided()).as("no longer held, not undecided").isEmpty();

    assertThat(item(completed)).isEqualTo(completedBefore);
    assertThat(item(unknown)).isEqualTo(unknownBefore);
  }

  @Test
  void anExtensionRaisesTheExpiryAndTtlWithTheLeaseAndNeverLowersThem() {
    DynamoDbIdempotencyStore dynamo = (DynamoDbIdempotencyStore) store;
    ClaimId id = id("extend-raise");
    LeaseToken token = LeaseToken.random();
    dynamo.claim(
        new ClaimRequest(id, "v1:a", token, Duration.ofSeconds(10), Duration.ofMinutes(1)));
    long start = clock.millis();

    assertThat(dynamo.extendLease(id, token, Duration.ofMinutes(5))).isTrue();
    Map<String, AttributeValue> raised = item(id);
    assertThat(Long.parseLong(raised.get("lease_expires_at").n()))
        .isEqualTo(start + Duration.ofMinutes(5).toMillis());
    assertThat(expiresOf(raised)).isEqualTo(start + Duration.ofMinutes(5).toMillis());
    assertThat(ttlOf(raised)).isEqualTo((expiresOf(raised) + 999) / 1000);

    clock.advance(Duration.ofSeconds(1));
    assertThat(dynamo.extendLease(id, token, Duration.ofSeconds(30))).isTrue();
    Map<String, AttributeValue> shorter = item(id);
    assertThat(Long.parseLong(shorter.get("lease_expires_at").n()))
        .isEqualTo(start + Duration.ofSeconds(31).toMillis());
    assertThat(expiresOf(shorter)).as("not lowered").isEqualTo(expiresOf(raised));
    assertThat(ttlOf(shorter)).isEqualTo(ttlOf(raised));
  }

  private static long leaseOf(Map<String, AttributeValue> item) {
    return Long.parseLong(item.get("lease_expires_at").n());
  }

  @Test
  void aRenewalNeverMovesALeaseBackAndALeaseAlreadyLaterIsHeldNotLost() {
    DynamoDbIdempotencyStore dynamo = (DynamoDbIdempotencyStore) store;
    ClaimId id = id("forward");
    LeaseToken token = LeaseToken.random();
    dynamo.claim(
        new ClaimRequest(id, "v1:a", token, Duration.ofSeconds(10), Duration.ofMinutes(1)));
    long start = clock.millis();
    List<HeldLease> held = List.of(new HeldLease(id, token));

    // the renewal sent second (by this process's clock) lands first, raising the expiry with it
    clock.advance(Duration.ofSeconds(1));
    assertThat(dynamo.extendLeases(held, Duration.ofMinutes(5), RENEWAL_DEADLINE).extended())
        .containsExactly(token);
    Map<String, AttributeValue> later = item(id);
    long end = start + Duration.ofSeconds(1).plusMinutes(5).toMillis();
    assertThat(leaseOf(later)).isEqualTo(end);
    assertThat(expiresOf(later)).isEqualTo(end);

    // the renewal sent first (the gate gave it up) lands after it, with the earlier end
    clock.advance(Duration.ofSeconds(-1));
    ExtendedLeases late = dynamo.extendLeases(held, Duration.ofMinutes(5), RENEWAL_DEADLINE);
    assertThat(late.extended()).as("still held, not lost").containsExactly(token);
    assertThat(late.undecided()).isEmpty();
    assertThat(item(id)).as("the lease is not moved back").isEqualTo(later);

    // so is a shorter lease
    ExtendedLeases shorter = dynamo.extendLeases(held, Duration.ofSeconds(30), RENEWAL_DEADLINE);
    assertThat(shorter.extended()).containsExactly(token);
    assertThat(item(id)).isEqualTo(later);

    // a later end moves it forward, the expiry with it
    clock.advance(Duration.ofMinutes(1));
    assertThat(dynamo.extendLeases(held, Duration.ofMinutes(5), RENEWAL_DEADLINE).extended())
        .containsExactly(token);
    assertThat(leaseOf(item(id))).isEqualTo(clock.millis() + Duration.ofMinutes(5).toMillis());
    assertThat(expiresOf(item(id))).isEqualTo(leaseOf(item(id)));

    // and a lease taken over is lost, whatever its end
    clock.advance(Duration.ofMinutes(10));
    LeaseToken next = LeaseToken.random();
    assertThat(dynamo.claim(new ClaimRequest(id, "v1:a", next, LONG, LONG)))
        .isInstanceOf(ClaimAttempt.Acquired.class);
    clock.advance(Duration.ofMinutes(-20));
    ExtendedLeases lost = dynamo.extendLeases(held, Duration.ofMinutes(5), RENEWAL_DEADLINE);
    assertThat(lost.isLost(token)).isTrue();
    assertThat(item(id).get("lease_token").s()).isEqualTo(next.value());
  }

  @Test
  void anExtensionCostsOneRequestPerLeaseOverTheRenewalClientOnly() {
    TestDynamo.RequestCounter renewalCounter = new TestDynamo.RequestCounter();
    DynamoDbClient renewalClient = TestDynamo.client(renewalCounter);
    try (DynamoDbIdempotencyStore dynamo =
        DynamoDbIdempotencyStore.builder(client)
            .tableName(TABLE)
            .clock(clock)
            .leaseSafetyMargin(Duration.ZERO)
            .renewalClient(renewalClient)
            .renewalConcurrency(4)
            .build()) {
      List<HeldLease> leases = new java.util.ArrayList<>();
      for (int i = 0; i < 20; i++) {
        ClaimId id = id("renewal-client-" + i);
        LeaseToken token = LeaseToken.random();
        dynamo.claim(new ClaimRequest(id, "v1:a", token, Duration.ofSeconds(10), LONG));
        leases.add(new HeldLease(id, token));
      }
      counter.requests.set(0);

      Set<LeaseToken> extended =
          dynamo.extendLeases(leases, Duration.ofMinutes(1), RENEWAL_DEADLINE).extended();

      assertThat(extended).hasSize(20);
      assertThat(renewalCounter.requests.get())
          .as("requests over the renewal client")
          .isEqualTo(20);
      assertThat(counter.requests.get()).as("requests over the tools' client").isZero();
      clock.advance(Duration.ofSeconds(30));
      for (HeldLease held : leases) {
        assertThat(
                dynamo.claim(new ClaimRequest(held.id(), "v1:a", LeaseToken.random(), LONG, LONG)))
            .isInstanceOf(ClaimAttempt.Existing.class);
      }
    } finally {
      renewalClient.close();
    }
  }

  @Test
  void aClosedStoreRefusesToExtendLeases() {
    DynamoDbIdempotencyStore dynamo =
        DynamoDbIdempotencyStore.builder(client)
            .tableName(TABLE)
            .clock(clock)
            .leaseSafetyMargin(Duration.ZERO)
            .build();
    ClaimId id = id("closed");
    LeaseToken token = LeaseToken.random();
    dynamo.claim(new ClaimRequest(id, "v1:a", token, Duration.ofSeconds(10), LONG));
    dynamo.close();

    assertThatThrownBy(
            () ->
                dynamo.extendLeases(
                    List.of(new HeldLease(id, token)), Duration.ofMinutes(1), RENEWAL_DEADLINE))
        .isInstanceOf(StoreUnavailableException.class)
        .hasMessageContaining("closed")
        .hasMessageContaining(TABLE);
  }

  @Test
  void renewalConcurrencyOutOfRangeIsRefusedNamingTheValue() {
    assertThatThrownBy(() -> DynamoDbIdempotencyStore.builder(client).renewalConcurrency(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("renewalConcurrency")
        .hasMessageContaining("was 0");
    assertThatThrownBy(() -> DynamoDbIdempotencyStore.builder(client).renewalConcurrency(257))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("was 257");
  }

  @Test
  void partitionValuesAreUnambiguous() {
    DynamoDbIdempotencyStore dynamo = (DynamoDbIdempotencyStore) store;
    assertThat(dynamo.partitionValue(new ClaimId("a|1:b", "c", "k")))
        .isNotEqualTo(dynamo.partitionValue(new ClaimId("a", "b|1:c", "k")));
  }
}
