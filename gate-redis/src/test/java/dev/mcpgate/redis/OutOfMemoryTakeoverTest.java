package dev.mcpgate.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.core.ClaimId;
import dev.mcpgate.core.GatePolicy;
import dev.mcpgate.core.GateResult;
import dev.mcpgate.core.IdempotencyGate;
import dev.mcpgate.core.LeaseToken;
import dev.mcpgate.core.ResultMapper;
import dev.mcpgate.core.StoreUnavailableException;
import dev.mcpgate.core.ToolCall;
import dev.mcpgate.core.spi.ClaimAttempt;
import dev.mcpgate.core.spi.ClaimRequest;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A Redis at its {@code maxmemory} under {@code noeviction} (the policy docs/stores.md asks for: a
 * full Redis refuses writes, and the gate fails closed). Redis refuses a script's write that needs
 * memory only while the script has not written yet. The extend, complete and mark-unknown scripts
 * start with an {@code HSET}, so they are refused; the claim's takeover started with a {@code DEL}
 * (which needs none), after which its {@code HSET} went through: renewals failed while takeovers of
 * the leases they could not renew succeeded, and a retry ran a live action again (found in review).
 * The takeover now writes its {@code HSET} first.
 */
class OutOfMemoryTakeoverTest {
  private static final Duration LEASE = Duration.ofSeconds(1);

  private static void outOfMemory(RedisClient admin, boolean on) {
    try (StatefulRedisConnection<String, String> c = admin.connect()) {
      c.sync().configSet("maxmemory-policy", "noeviction");
      c.sync().configSet("maxmemory", on ? "1" : "0");
    }
  }

  @Test
  void aFullRedisRefusesTheRenewalButLetsATakeoverOfThatLeaseThrough() throws Exception {
    try (TestRedis.PrivateRedis redis = TestRedis.PrivateRedis.start(TestRedis.freePort())) {
      RedisURI uri = RedisURI.create("redis://127.0.0.1:" + redis.port());
      RedisClient admin = RedisClient.create(uri);
      try (RedisIdempotencyStore store = RedisIdempotencyStore.builder(uri).build()) {
        ClaimId id = new ClaimId("review-oom", "refund_order", "ord-1");
        LeaseToken a = LeaseToken.random();
        assertThat(store.claim(new ClaimRequest(id, "v1:a", a, LEASE, Duration.ofMinutes(10))))
            .isInstanceOf(ClaimAttempt.Acquired.class);

        outOfMemory(admin, true);
        Object renewal;
        try {
          renewal = store.extendLease(id, a, LEASE);
        } catch (StoreUnavailableException e) {
          renewal = e;
        }
        assertThat(renewal)
            .as("the holder's renewal on a full Redis")
            .isInstanceOf(StoreUnavailableException.class);
        Thread.sleep(LEASE.toMillis() + 300);

        Object takeover;
        try {
          takeover =
              store.claim(
                  new ClaimRequest(id, "v1:a", LeaseToken.random(), LEASE, Duration.ofMinutes(10)));
        } catch (StoreUnavailableException e) {
          takeover = e;
        }
        // a full Redis fails closed: the takeover of a lease its holder could not renew must be
        // refused like the renewal was
        assertThat(takeover)
            .as("a takeover claim on the same full Redis that refused the renewal")
            .isInstanceOf(StoreUnavailableException.class);
      } finally {
        outOfMemory(admin, false);
        admin.shutdown();
      }
    }
  }

  @Test
  void aLiveLongActionRunsOnceOnAFullRedis() throws Exception {
    try (TestRedis.PrivateRedis redis = TestRedis.PrivateRedis.start(TestRedis.freePort())) {
      RedisURI uri = RedisURI.create("redis://127.0.0.1:" + redis.port());
      RedisClient admin = RedisClient.create(uri);
      GatePolicy policy =
          GatePolicy.builder().lease(LEASE).leaseRenewal(Duration.ofMillis(250)).build();
      ExecutorService pool = Executors.newFixedThreadPool(2);
      AtomicInteger runs = new AtomicInteger();
      AtomicBoolean firstAlive = new AtomicBoolean();
      AtomicBoolean secondRanWhileFirstAlive = new AtomicBoolean();
      try (RedisIdempotencyStore storeA = RedisIdempotencyStore.builder(uri).build();
          RedisIdempotencyStore storeB = RedisIdempotencyStore.builder(uri).build();
          IdempotencyGate gateA = IdempotencyGate.builder(storeA).policy(policy).build();
          IdempotencyGate gateB = IdempotencyGate.builder(storeB).policy(policy).build()) {
        ToolCall call =
            ToolCall.of(
                "review-oom-" + UUID.randomUUID(), "refund_order", "ord-2", Map.of("order", 2));
        CountDownLatch started = new CountDownLatch(1);
        Future<GateResult<String>> first =
            pool.submit(
                () ->
                    gateA.execute(
                        call,
                        ResultMapper.utf8(),
                        ctx -> {
                          runs.incrementAndGet();
                          firstAlive.set(true);
                          started.countDown();
                          Thread.sleep(4_000);
                          firstAlive.set(false);
                          return "refunded";
                        }));
        assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();
        outOfMemory(admin, true); // Redis is full from now on
        Thread.sleep(2 * LEASE.toMillis());

        GateResult<String> retry =
            gateB.execute(
                call,
                ResultMapper.utf8(),
                ctx -> {
                  runs.incrementAndGet();
                  secondRanWhileFirstAlive.set(firstAlive.get());
                  return "refunded again";
                });
        first.get(30, TimeUnit.SECONDS);
        assertThat(retry)
            .as("the retry on a full Redis: %s", retry)
            .isInstanceOf(GateResult.Failed.class);
        assertThat(secondRanWhileFirstAlive)
            .as("the retry's action ran while the first attempt's action was still running")
            .isFalse();
        assertThat(runs).as("executions of one intent on a full Redis").hasValue(1);
      } finally {
        outOfMemory(admin, false);
        admin.shutdown();
        pool.shutdownNow();
      }
    }
  }
}
