package dev.mcpgate.redis;

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
import io.lettuce.core.KillArgs;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
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

/**
 * The renewal fault suite for the Redis store, as gate-jdbc's {@code RenewalFaultSuite} is for the
 * JDBC store: for each fault a lease renewal can meet, on the standalone Redis through a {@link
 * FaultProxy}, two replicas (gates A and B, each with its own store and client on one server) and
 * the default policy. A runs a live action longer than the lease, its store's connections (the main
 * one and the renewals' own) through the proxy; the fault hits A's renewal path just after a
 * renewal, about two seconds into the action; B, straight to Redis, retries the same key all along,
 * through the fault. The action must run once, A must be told its result is stored, and B must only
 * ever be told "in progress" and then be given A's result. A fail-over may also fail A's
 * completion: then A must be told its result is not stored, the key must stay fenced as unknown,
 * and B must be told so. Redis has no pool to hold: instead, each fault runs once with A running
 * this action alone and once with {@value #OTHERS} more actions of A, whose leases go in the same
 * renewal pipeline (each of those must run once too). The renewal connection is found by its name
 * ({@code CLIENT LIST}, {@value RenewalPipeline#CLIENT_NAME}) and the port it comes from (a link's
 * {@link Link#upstreamLocalPort()}). Every case runs at once; one line per case is printed.
 */
class RedisRenewalFaultTest {
  /** Longer than the default lease (5 s), so that a lost lease would be taken over. */
  private static final Duration ACTION = Duration.ofSeconds(9);

  /** When the fault is made at the earliest, after the action started: then after a renewal. */
  private static final Duration FAULT_AT = Duration.ofMillis(1500);

  /** The other actions of A in a case "with others", renewed in the same pipeline. */
  private static final int OTHERS = 20;

  private static final String PREFIX = "mcpgate-test:";

  /** The faults: each one fault of the renewal connection, or a short fault of the whole store. */
  enum Fault {
    /** No fault: the baseline. */
    NONE,
    /** The server ends the renewal connection's session ({@code CLIENT KILL ID}). */
    SESSION_KILLED,
    /** The renewal connection is reset (a firewall, a NAT that forgot it). */
    CONNECTION_RESET,
    /** The renewal connection goes silent, half-open: nothing arrives, nothing is refused. */
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
    TestRedis.url(); // skipped (or failed) here when there is no Redis
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
        "renewal fault suite on Redis " + TestRedis.url(),
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
    URI redis = URI.create(TestRedis.url());
    try (FaultProxy proxy = FaultProxy.to(redis);
        RedisIdempotencyStore storeA = store(proxy.relayed(redis));
        RedisIdempotencyStore storeB = store(redis)) {
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
        Future<?> faulting = threads.submit(() -> fault(c.fault(), proxy)); // B retries meanwhile

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
                "A's connections=%d  failed tries=%d", proxy.links().size(), failedTries.get()),
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

  private static RedisIdempotencyStore store(URI uri) {
    return RedisIdempotencyStore.builder(RedisURI.create(uri.toString())).keyPrefix(PREFIX).build();
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

  /** Makes the case's fault. */
  private static Void fault(Fault fault, FaultProxy proxy) throws Exception {
    switch (fault) {
      case NONE -> {}
      case SESSION_KILLED -> {
        try (StatefulRedisConnection<String, String> admin = TestRedis.client().connect()) {
          long client = renewalClient(admin, proxy).id();
          assertThat(admin.sync().clientKill(KillArgs.Builder.id(client)))
              .as("the renewal session killed")
              .isEqualTo(1L);
        }
      }
      case CONNECTION_RESET -> renewalLink(proxy).reset();
      case CONNECTION_SILENT -> renewalLink(proxy).blackhole();
      case FAILOVER -> {
        proxy.refuseNew(true);
        for (Link l : proxy.links()) {
          l.reset();
        }
        Thread.sleep(1000);
        proxy.refuseNew(false);
      }
      case STORE_STALL -> {
        proxy.latency(Duration.ofMillis(500)); // each way: one second more per round trip
        Thread.sleep(3000);
        proxy.latency(Duration.ZERO);
      }
      default -> throw new IllegalArgumentException(fault.name());
    }
    return null;
  }

  /** The link that carries A's renewal connection. */
  private static Link renewalLink(FaultProxy proxy) {
    try (StatefulRedisConnection<String, String> admin = TestRedis.client().connect()) {
      int port = renewalClient(admin, proxy).port();
      return proxy.links().stream()
          .filter(l -> l.isOpen() && l.upstreamLocalPort() == port)
          .findFirst()
          .orElseThrow();
    }
  }

  /** A client of the server as {@code CLIENT LIST} shows it: its id and the port it comes from. */
  private record Client(long id, int port) {}

  /**
   * @return the one client named {@value RenewalPipeline#CLIENT_NAME} that comes from an open link
   *     of {@code proxy}: A's renewal connection (the other cases' come from their own proxies)
   */
  private static Client renewalClient(
      StatefulRedisConnection<String, String> admin, FaultProxy proxy) {
    List<Integer> ports = new ArrayList<>();
    for (Link l : proxy.links()) {
      if (l.isOpen()) {
        ports.add(l.upstreamLocalPort());
      }
    }
    List<Client> found = new ArrayList<>();
    for (String line : admin.sync().clientList().split("\n")) {
      Map<String, String> fields = new HashMap<>();
      for (String field : line.trim().split(" ")) {
        int eq = field.indexOf('=');
        if (eq > 0) {
          fields.put(field.substring(0, eq), field.substring(eq + 1));
        }
      }
      String addr = fields.get("addr");
      if (addr == null) {
        continue;
      }
      int port = Integer.parseInt(addr.substring(addr.lastIndexOf(':') + 1));
      if (RenewalPipeline.CLIENT_NAME.equals(fields.get("name")) && ports.contains(port)) {
        found.add(new Client(Long.parseLong(fields.get("id")), port));
      }
    }
    assertThat(found).as("A's renewal connection in CLIENT LIST").hasSize(1);
    return found.get(0);
  }
}
