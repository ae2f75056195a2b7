package dev.mcpgate.redis.review;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.core.ClaimId;
import dev.mcpgate.core.LeaseToken;
import dev.mcpgate.core.spi.ClaimAttempt;
import dev.mcpgate.core.spi.ClaimRequest;
import dev.mcpgate.redis.RedisIdempotencyStore;
import io.lettuce.core.RedisURI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * A private cluster (three masters with a replica each) after an unplanned failover: one master
 * killed, its replica promoted, {@code cluster_state:ok} again. The dead master stays in every
 * node's {@code CLUSTER NODES} as {@code master,fail} with no slots until it comes back or an
 * operator forgets it.
 */
class ClusterFailoverReviewTest {

  /**
   * {@code verify()} is the startup check: it must pass on a cluster that serves every slot from
   * masters that answer. The dead ex-master serves no slot; a store that refuses to start because
   * it cannot reach it keeps a service down (a restart loop) while the cluster is healthy.
   */
  @Test
  void verifyPassesAfterAFailoverWhileTheDeadMasterIsStillListed() throws Exception {
    try (PrivateReviewCluster cluster = PrivateReviewCluster.start()) {
      int dead = cluster.aMaster();
      cluster.kill(dead);
      List<Integer> alive = new ArrayList<>(cluster.ports);
      alive.remove(Integer.valueOf(dead));
      cluster.awaitFailoverOf(dead);
      List<RedisURI> seeds = new ArrayList<>();
      alive.forEach(p -> seeds.add(RedisURI.create("redis://127.0.0.1:" + p)));
      try (RedisIdempotencyStore store =
          RedisIdempotencyStore.clusterBuilder(seeds).keyPrefix("mcpgate-review:").build()) {
        // every slot is served: claims on keys all over the slots are taken
        String tenant = "review-failover-" + UUID.randomUUID();
        for (int i = 0; i < 50; i++) {
          ClaimId id = new ClaimId(tenant, "refund_order", "k" + i);
          assertThat(
                  store.claim(
                      new ClaimRequest(
                          id,
                          "v1:a",
                          LeaseToken.random(),
                          Duration.ofSeconds(30),
                          Duration.ofMinutes(5))))
              .isInstanceOf(ClaimAttempt.Acquired.class);
        }
        store.verify();
      }
    }
  }

  /**
   * A master hangs (SIGSTOP: the kernel still accepts connections to it, it answers nothing), its
   * replica is promoted, and the cluster serves every slot again. A store started now (a service
   * restarted during the incident, or scaled out) must answer its first claim within about its
   * command timeout, as the gate's fail-closed rule and the liveness budget ask: its claims go to
   * masters that answer.
   */
  @Test
  void aStoreStartedWhileAHungExMasterIsStillListedAnswersWithinItsCommandTimeout()
      throws Exception {
    try (PrivateReviewCluster cluster = PrivateReviewCluster.start()) {
      int hung = cluster.aMaster();
      cluster.freeze(hung, true);
      List<Integer> alive = new ArrayList<>(cluster.ports);
      alive.remove(Integer.valueOf(hung));
      cluster.awaitFailoverOf(hung);
      List<RedisURI> seeds = new ArrayList<>();
      alive.forEach(p -> seeds.add(RedisURI.create("redis://127.0.0.1:" + p)));
      Duration timeout = Duration.ofSeconds(2);
      try (RedisIdempotencyStore store =
          RedisIdempotencyStore.clusterBuilder(seeds)
              .keyPrefix("mcpgate-review:")
              .commandTimeout(timeout)
              .build()) {
        ClaimId id = new ClaimId("review-hung-" + UUID.randomUUID(), "refund_order", "k");
        long start = System.nanoTime();
        Object answer;
        try {
          answer =
              store.claim(
                  new ClaimRequest(
                      id,
                      "v1:a",
                      LeaseToken.random(),
                      Duration.ofSeconds(30),
                      Duration.ofMinutes(5)));
        } catch (RuntimeException e) {
          answer = e;
        }
        Duration took = Duration.ofNanos(System.nanoTime() - start);
        assertThat(took)
            .as("the first claim of a store started after the failover (answer: %s)", answer)
            .isLessThan(timeout.plusSeconds(5));
        assertThat(answer).isInstanceOf(ClaimAttempt.Acquired.class);
      }
    }
  }
}
