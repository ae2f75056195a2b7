package dev.mcpgate.jdbc;

import static dev.mcpgate.store.tck.fault.RenewalFaultChecks.summary;
import static dev.mcpgate.store.tck.fault.RenewalFaultChecks.told;
import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
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
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The renewal fault suite: for each fault a lease renewal can meet, on a real server through a
 * {@link FaultProxy}, two replicas (gates A and B, each with its own store on one table) and the
 * default policy. A runs a live action longer than the lease; the fault hits A's renewal path
 * shortly after it starts; B retries the same key all along. The action must run once, A must be
 * told its result is stored, and B must only ever be told "in progress" and then be given A's
 * result. A fail-over may also fail A's completion: then A must be told its result is not stored,
 * the key must stay fenced as unknown, and B must be told so. Each fault runs with A's pool idle
 * and with A's pool held in full by the tools and more calls waiting for it. The checks, B's
 * retries and the table are {@link RenewalFaultChecks}'s. One line per case is printed.
 */
abstract class RenewalFaultSuite {
  /** Longer than the default lease (5 s), so that a lost lease would be taken over. */
  private static final Duration ACTION = Duration.ofSeconds(9);

  /** When the fault is made, after the action started. */
  private static final Duration FAULT_AT = Duration.ofMillis(1500);

  private static final String TABLE = "mcpgate_fault_suite";

  /** The faults: each one fault of one connection, or a short stall of the whole store. */
  enum Fault {
    /** No fault: the baseline. */
    NONE,
    /** The server ends the renewal connection's session (pg_terminate_backend, KILL). */
    SESSION_KILLED,
    /** The renewal connection is reset (a firewall, a NAT that forgot it). */
    CONNECTION_RESET,
    /** The renewal connection goes silent, half-open: nothing arrives, nothing is refused. */
    CONNECTION_SILENT,
    /** A fail-over: every open connection is reset and new ones are refused for a second. */
    FAILOVER,
    /** Every connection of A gets one second more per round trip, for three seconds. */
    STORE_STALL,
    /** Another transaction holds the row of another running attempt of A locked, for long. */
    OTHER_ROW_LOCKED
  }

  /** One case of the suite. */
  record Case(Fault fault, boolean busyPool) {
    @Override
    public String toString() {
      return fault + (busyPool ? " + busy pool" : "");
    }
  }

  abstract TestDatabases.Target target();

  /** Ends the server session of the client connected from {@code clientPort}. */
  abstract void killSession(Connection admin, int clientPort) throws SQLException;

  @Test
  void everyRenewalFaultCostsNoLeaseAndEveryAnswerIsTrue() throws Exception {
    createTable();
    List<Case> cases = new ArrayList<>();
    for (Fault fault : Fault.values()) {
      cases.add(new Case(fault, false));
      cases.add(new Case(fault, true));
    }
    Map<String, Callable<Outcome>> runs = new LinkedHashMap<>();
    for (Case c : cases) {
      runs.put(c.toString(), () -> run(c));
    }
    // half of the cases at a time: each case holds about six connections of the server
    RenewalFaultChecks.runAll(
        "renewal fault suite on " + target().how(), runs, cases.size() / 2, Duration.ofMinutes(4));
  }

  private void createTable() {
    JdbcIdempotencyStore.builder(TestDatabases.pool(target(), "fault-suite", 2))
        .tableName(TABLE)
        .createSchemaIfMissing(true)
        .build()
        .verify();
  }

  private Outcome run(Case c) throws Exception {
    String tenant = "fault-" + UUID.randomUUID();
    ToolCall call = ToolCall.of(tenant, "refund_order", "k", Map.of("order_id", "ord_1"));
    ToolCall other = ToolCall.of(tenant, "refund_order", "k2", Map.of("order_id", "ord_2"));
    List<String> wrong = new ArrayList<>();
    AtomicInteger effects = new AtomicInteger();
    List<String> bAnswers = new CopyOnWriteArrayList<>();
    AtomicInteger renewals = new AtomicInteger();
    long t0 = System.nanoTime();
    List<String> lease = new CopyOnWriteArrayList<>(); // A's lease events, ms from the case's start
    ExecutorService threads = Executors.newCachedThreadPool();
    try (FaultProxy proxy = FaultProxy.to(target().url());
        HikariDataSource poolA = pool(proxy.relayedJdbcUrl(target().url()), 3);
        HikariDataSource poolB = pool(target().url(), 2)) {
      awaitFull(poolA, 3);
      JdbcIdempotencyStore storeA = JdbcIdempotencyStore.builder(poolA).tableName(TABLE).build();
      JdbcIdempotencyStore storeB = JdbcIdempotencyStore.builder(poolB).tableName(TABLE).build();
      IdempotencyGate gateA =
          IdempotencyGate.builder(storeA)
              .listener(
                  e -> {
                    if (e.type() == GateEvent.Type.LEASE_RENEWED) {
                      renewals.incrementAndGet();
                    }
                    if (e.type().name().startsWith("LEASE_")) {
                      lease.add(
                          e.type().name().substring(6).toLowerCase(java.util.Locale.ROOT)
                              + "@"
                              + (System.nanoTime() - t0) / 1_000_000);
                    }
                  })
              .build();
      IdempotencyGate gateB = IdempotencyGate.builder(storeB).build();
      try {
        CountDownLatch started = new CountDownLatch(1);
        Future<GateResult<String>> a =
            threads.submit(
                () ->
                    gateA.execute(
                        call,
                        ResultMapper.utf8(),
                        RenewalFaultChecks.liveAction(
                            effects, started, ACTION, RenewalFaultChecks.A_RESULT)));
        Future<GateResult<String>> a2 = null;
        if (c.fault() == Fault.OTHER_ROW_LOCKED) {
          a2 =
              threads.submit(
                  () ->
                      gateA.execute(
                          other,
                          ResultMapper.utf8(),
                          ctx -> {
                            Thread.sleep(ACTION.toMillis());
                            return "other";
                          }));
        }
        assertThat(started.await(30, TimeUnit.SECONDS)).as("A's action started").isTrue();
        List<Connection> held = new CopyOnWriteArrayList<>();
        CountDownLatch toolsDone = new CountDownLatch(1);
        if (c.busyPool()) {
          while (poolA.getHikariPoolMXBean().getIdleConnections() > 0) {
            held.add(poolA.getConnection()); // all the pool has left
          }
          for (int i = 0; i < 2; i++) { // more calls wait for the pool, and keep what they get
            threads.submit(
                () -> {
                  try (Connection waiting = poolA.getConnection()) {
                    toolsDone.await();
                  }
                  return null;
                });
          }
        }
        Thread.sleep(FAULT_AT.toMillis());
        int renewalLink = renewalLink(proxy, renewals);
        Connection locker = fault(c.fault(), proxy, renewalLink, tenant);

        RenewalFaultChecks.retryWhileRunning(
            gateB, call, effects, a, ACTION.plusSeconds(2), bAnswers);
        for (Connection h : held) {
          h.close(); // the tools give their connections back: A's completion needs one
        }
        toolsDone.countDown();
        if (locker != null) {
          locker.rollback();
          locker.close();
        }
        GateResult<String> resultA = a.get(60, TimeUnit.SECONDS);
        if (a2 != null) {
          a2.get(60, TimeUnit.SECONDS);
        }
        String after = RenewalFaultChecks.lastTry(gateB, call);
        bAnswers.add(after);

        String aTold = told(resultA);
        ClaimRecord row = storeB.find(new ClaimId(tenant, "refund_order", "k")).orElse(null);
        ClaimState state = row == null ? null : row.state();
        RenewalFaultChecks.checkAnswers(
            effects.get(), bAnswers, aTold, state, after, c.fault() == Fault.FAILOVER, wrong);
        // when a case goes wrong, when A's lease was renewed, failed to be, and was lost
        String counts = wrong.isEmpty() ? "" : "A's lease: " + String.join(" ", lease);
        return new Outcome(c.toString(), effects.get(), counts, aTold, summary(bAnswers), wrong);
      } finally {
        gateA.close();
        gateB.close();
        storeA.close();
        storeB.close();
      }
    } finally {
      threads.shutdownNow();
    }
  }

  /**
   * @return the index of the link that carries A's renewals: the one whose traffic to the server
   *     grows most over one renewal, while the action sleeps and the tools' connections are idle
   */
  private static int renewalLink(FaultProxy proxy, AtomicInteger renewals) throws Exception {
    List<Link> links = proxy.links();
    long[] before = new long[links.size()];
    for (int i = 0; i < before.length; i++) {
      before[i] = links.get(i).bytesToServer();
    }
    int seen = renewals.get();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    // two renewals: a whole one is sent and answered after the counts were read
    while (renewals.get() < seen + 2 && System.nanoTime() < deadline) {
      Thread.sleep(10);
    }
    assertThat(renewals.get()).as("A renewed its lease twice").isGreaterThan(seen + 1);
    Thread.sleep(50); // the counters follow the bytes just after they are written
    links = proxy.links();
    int busiest = -1;
    long most = 0;
    for (int i = 0; i < links.size(); i++) {
      long delta = links.get(i).bytesToServer() - (i < before.length ? before[i] : 0);
      if (delta > most) {
        most = delta;
        busiest = i;
      }
    }
    assertThat(busiest).as("a link carried the renewal").isNotNegative();
    return busiest;
  }

  /** Makes the case's fault; returns the connection that holds a row locked, if any. */
  private Connection fault(Fault fault, FaultProxy proxy, int renewalLink, String tenant)
      throws Exception {
    Link link = proxy.links().get(renewalLink);
    switch (fault) {
      case NONE:
        return null;
      case SESSION_KILLED:
        try (Connection admin = TestDatabases.pool(target(), "fault-admin", 2).getConnection()) {
          killSession(admin, link.upstreamLocalPort());
        }
        return null;
      case CONNECTION_RESET:
        link.reset();
        return null;
      case CONNECTION_SILENT:
        link.blackhole();
        return null;
      case FAILOVER:
        proxy.refuseNew(true);
        for (Link l : proxy.links()) {
          l.reset();
        }
        Thread.sleep(1000);
        proxy.refuseNew(false);
        return null;
      case STORE_STALL:
        proxy.latency(Duration.ofMillis(500)); // each way: one second more per round trip
        Thread.sleep(3000);
        proxy.latency(Duration.ZERO);
        return null;
      case OTHER_ROW_LOCKED:
        Connection locker = TestDatabases.pool(target(), "fault-locker", 8).getConnection();
        locker.setAutoCommit(false);
        try (PreparedStatement ps =
            locker.prepareStatement(
                "SELECT * FROM "
                    + TABLE
                    + " WHERE tenant = ? AND tool = 'refund_order' AND idem_key = 'k2'"
                    + " FOR UPDATE")) { // the whole key: InnoDB locks that one row, no range
          ps.setString(1, tenant);
          ps.executeQuery().close();
        }
        return locker;
      default:
        throw new IllegalArgumentException(fault.name());
    }
  }

  private HikariDataSource pool(String url, int size) {
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(url);
    if (target().user() != null) {
      config.setUsername(target().user());
    }
    if (target().password() != null) {
      config.setPassword(target().password());
    }
    config.setMaximumPoolSize(size);
    config.setMinimumIdle(size);
    config.setConnectionTimeout(30_000);
    return new HikariDataSource(config);
  }

  private static void awaitFull(HikariDataSource pool, int size) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (pool.getHikariPoolMXBean().getTotalConnections() < size
        && System.nanoTime() < deadline) {
      Thread.sleep(20);
    }
  }
}
