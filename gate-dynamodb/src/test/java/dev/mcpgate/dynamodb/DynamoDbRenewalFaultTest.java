package dev.mcpgate.dynamodb;

import static dev.mcpgate.store.tck.fault.RenewalFaultChecks.summary;
import static dev.mcpgate.store.tck.fault.RenewalFaultChecks.told;
import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.core.ClaimId;
import dev.mcpgate.core.GateEvent;
import dev.mcpgate.core.GateResult;
import dev.mcpgate.core.IdempotencyGate;
import dev.mcpgate.core.ResultMapper;
import dev.mcpgate.core.ToolCall;
import dev.mcpgate.core.spi.ClaimRecord;
import dev.mcpgate.core.spi.ClaimState;
import dev.mcpgate.store.tck.fault.FaultProxy;
import dev.mcpgate.store.tck.fault.Link;
import dev.mcpgate.store.tck.fault.RenewalFaultChecks;
import dev.mcpgate.store.tck.fault.RenewalFaultChecks.Outcome;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * The renewal fault suite for the DynamoDB store, as gate-jdbc's {@code RenewalFaultSuite} is for
 * the JDBC store: for each fault a lease renewal can meet, on a DynamoDB-API server (dynalite in
 * CI) through {@link FaultProxy}s, two replicas (gates A and B, each with its own store and clients
 * on one table) and the default policy. A's store has a renewal client of its own, as
 * docs/stores.md advises, through one proxy, and its main client through another; a fault of the
 * renewal connections (every pooled connection of the renewal client reset, or gone silent while
 * new ones still pass) hits the first, a fault of the whole store (a fail-over, a stall) both. A
 * runs a live action longer than the lease; the fault hits just after a renewal, about two seconds
 * into the action; B, straight to the server, retries the same key all along, through the fault.
 * The action must run once, A must be told its result is stored, and B must only ever be told "in
 * progress" and then be given A's result. A fail-over may also fail A's completion: then A must be
 * told its result is not stored, the key must stay fenced as unknown, and B must be told so. Each
 * fault runs once with A running this action alone and once with {@value #OTHERS} more actions of
 * A, renewed by the same renewals (more leases than the store's 16 renewal threads; each of those
 * actions must run once too). Every case runs at once; one line per case is printed.
 */
class DynamoDbRenewalFaultTest {
  /** Longer than the default lease (5 s), so that a lost lease would be taken over. */
  private static final Duration ACTION = Duration.ofSeconds(9);

  /** When the fault is made at the earliest, after the action started: then after a renewal. */
  private static final Duration FAULT_AT = Duration.ofMillis(1500);

  /** The other actions of A in a case "with others", renewed in the same pipeline. */
  private static final int OTHERS = 20;

  /**
   * The store tests' table: making a table waits on the SDK's waiter (20 s on dynalite), so the
   * module makes one only once.
   */
  private static final String TABLE = DynamoDbStoreTest.TABLE;

  /**
   * The faults: each one fault of the renewal connections, or a short fault of the whole store. An
   * HTTP server keeps no session to kill: a reset is the nearest.
   */
  enum Fault {
    /** No fault: the baseline. */
    NONE,
    /** Every open connection of the renewal client is reset (a firewall, a NAT that forgot it). */
    CONNECTION_RESET,
    /**
     * Every open connection of the renewal client goes silent, half-open: nothing arrives, nothing
     * is refused; new connections pass.
     */
    CONNECTION_SILENT,
    /** A fail-over: every open connection of A is reset and new ones are refused for a second. */
    FAILOVER,
    /** Every connection of A gets one second more per round trip, for three seconds. */
    STORE_STALL
  }

  /** One case of the suite. */
  record Case(Fault fault, boolean others) {
    @Override
    public String toString() {
      return fault + (others ? " + " + OTHERS + " other actions" : "");
    }
  }

  @Test
  void everyRenewalFaultCostsNoLeaseAndEveryAnswerIsTrue() throws Exception {
    try (DynamoDbClient client = TestDynamo.client()) { // skipped (or failed) without a server
      DynamoDbIdempotencyStore.builder(client)
          .tableName(TABLE)
          .createSchemaIfMissing(true) // unless the store tests made it already
          .build()
          .close();
    }
    List<Case> cases = new ArrayList<>();
    for (Fault fault : Fault.values()) {
      cases.add(new Case(fault, false));
      cases.add(new Case(fault, true));
    }
    Map<String, Callable<Outcome>> runs = new LinkedHashMap<>();
    for (Case c : cases) {
      runs.put(c.toString(), () -> run(c));
    }
    RenewalFaultChecks.runAll(
        "renewal fault suite on DynamoDB " + TestDynamo.endpoint(),
        runs,
        cases.size(),
        Duration.ofMinutes(2));
  }

  private Outcome run(Case c) throws Exception {
    String tenant = "fault-" + UUID.randomUUID();
    ToolCall call = ToolCall.of(tenant, "refund_order", "k", Map.of("order_id", "ord_1"));
    ClaimId id = new ClaimId(tenant, "refund_order", "k");
    List<String> wrong = new ArrayList<>();
    AtomicInteger effects = new AtomicInteger();
    Map<String, AtomicInteger> otherEffects = new ConcurrentHashMap<>();
    List<String> bAnswers = new CopyOnWriteArrayList<>();
    AtomicInteger renewals = new AtomicInteger();
    AtomicInteger failedTries = new AtomicInteger();
    ExecutorService threads = Executors.newCachedThreadPool();
    URI endpoint = URI.create(TestDynamo.endpoint());
    try (FaultProxy proxy = FaultProxy.to(endpoint);
        FaultProxy renewalProxy = FaultProxy.to(endpoint);
        DynamoDbClient mainA = TestDynamo.client(proxy.relayed(endpoint));
        DynamoDbClient renewalsA = TestDynamo.client(renewalProxy.relayed(endpoint));
        DynamoDbClient clientB = TestDynamo.client();
        DynamoDbIdempotencyStore storeA =
            DynamoDbIdempotencyStore.builder(mainA)
                .tableName(TABLE)
                .renewalClient(renewalsA)
                .build();
        DynamoDbIdempotencyStore storeB =
            DynamoDbIdempotencyStore.builder(clientB).tableName(TABLE).build()) {
      IdempotencyGate gateA =
          IdempotencyGate.builder(storeA)
              .listener(
                  e -> {
                    if (e.id().equals(id) && e.type() == GateEvent.Type.LEASE_RENEWED) {
                      renewals.incrementAndGet();
                    } else if (e.id().equals(id)
                        && e.type() == GateEvent.Type.LEASE_RENEWAL_FAILED) {
                      failedTries.incrementAndGet();
                    }
                  })
              .build();
      IdempotencyGate gateB = IdempotencyGate.builder(storeB).build();
      try {
        CountDownLatch started = new CountDownLatch(1 + (c.others() ? OTHERS : 0));
        Future<GateResult<String>> a =
            threads.submit(
                () ->
                    gateA.execute(
                        call,
                        ResultMapper.utf8(),
                        RenewalFaultChecks.liveAction(
                            effects, started, ACTION, RenewalFaultChecks.A_RESULT)));
        Map<String, Future<GateResult<String>>> others = new LinkedHashMap<>();
        if (c.others()) {
          for (int i = 0; i < OTHERS; i++) {
            String key = "other-" + i;
            ToolCall other = ToolCall.of(tenant, "refund_order", key, Map.of("order_id", key));
            others.put(
                key,
                threads.submit(
                    () ->
                        gateA.execute(
                            other,
                            ResultMapper.utf8(),
                            RenewalFaultChecks.liveAction(
                                otherEffects.computeIfAbsent(key, k -> new AtomicInteger()),
                                started,
                                ACTION,
                                key))));
          }
        }
        assertThat(started.await(30, TimeUnit.SECONDS)).as("A's actions started").isTrue();
        Thread.sleep(FAULT_AT.toMillis());
        awaitRenewal(renewals); // the fault lands just after a renewal: the next one meets it
        Future<?> faulting = // B retries meanwhile
            threads.submit(() -> fault(c.fault(), proxy, renewalProxy));

        RenewalFaultChecks.retryWhileRunning(
            gateB, call, effects, a, ACTION.plusSeconds(2), bAnswers);
        faulting.get(60, TimeUnit.SECONDS);
        GateResult<String> resultA = a.get(60, TimeUnit.SECONDS);
        String after = RenewalFaultChecks.lastTry(gateB, call);
        bAnswers.add(after);

        String aTold = told(resultA);
        ClaimState state = storeB.find(id).map(ClaimRecord::state).orElse(null);
        RenewalFaultChecks.checkAnswers(
            effects.get(), bAnswers, aTold, state, after, c.fault() == Fault.FAILOVER, wrong);
        Map<String, Integer> otherTold =
            RenewalFaultChecks.checkOthers(
                others,
                otherEffects,
                key ->
                    storeB
                        .find(new ClaimId(tenant, "refund_order", key))
                        .map(ClaimRecord::state)
                        .orElse(null),
                c.fault() == Fault.FAILOVER,
                wrong);
        if (!otherTold.isEmpty() && !otherTold.equals(Map.of("executed STORED", OTHERS))) {
          aTold += " " + otherTold; // how the others ended, when not all stored
        }
        return new Outcome(
            c.toString(),
            effects.get(),
            String.format(
                "renewal connections=%-2d  failed tries=%d",
                renewalProxy.links().size(), failedTries.get()),
            aTold,
            summary(bAnswers),
            wrong);
      } finally {
        gateA.close();
        gateB.close();
      }
    } finally {
      threads.shutdownNow();
    }
  }

  /** Waits for A's next renewal of the action's lease. */
  private static void awaitRenewal(AtomicInteger renewals) throws InterruptedException {
    int seen = renewals.get();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (renewals.get() == seen && System.nanoTime() < deadline) {
      Thread.sleep(5);
    }
    assertThat(renewals.get()).as("A renewed its lease").isGreaterThan(seen);
  }

  /**
   * Makes the case's fault: on the renewal client's connections ({@code renewals}), or on every
   * connection of A.
   */
  private static Void fault(Fault fault, FaultProxy main, FaultProxy renewals) throws Exception {
    List<FaultProxy> all = List.of(main, renewals);
    switch (fault) {
      case NONE -> {}
      case CONNECTION_RESET -> renewals.links().forEach(Link::reset);
      case CONNECTION_SILENT -> renewals.links().forEach(Link::blackhole); // new ones pass
      case FAILOVER -> {
        for (FaultProxy p : all) {
          p.refuseNew(true);
          p.links().forEach(Link::reset);
        }
        Thread.sleep(1000);
        all.forEach(p -> p.refuseNew(false));
      }
      case STORE_STALL -> {
        for (FaultProxy p : all) {
          p.latency(Duration.ofMillis(500)); // each way: one second more per round trip
        }
        Thread.sleep(3000);
        all.forEach(p -> p.latency(Duration.ZERO));
      }
      default -> throw new IllegalArgumentException(fault.name());
    }
    return null;
  }
}
