package dev.mcpgate.dynamodb.review;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.core.spi.HeldLease;
import dev.mcpgate.dynamodb.DynamoDbIdempotencyStore;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The shortest legal renewal deadline (extendLeases(..., within = 1 ms)) on a renewal executor that
 * runs the task on the calling thread (a direct executor): what is left of the deadline when the
 * request is sent is under 1 ms, which the SDK truncates to a 0 ms API call timeout and reads as no
 * timeout at all, overriding the client's own 2 s. The call, promised to answer within 1 ms, blocks
 * for as long as the server does not answer. (Found in review; every request now carries a timeout
 * of at least 1 ms.)
 */
class SubMillisecondRenewalDeadlineReviewTest {

  @Test
  void aRenewalOfOneMillisecondAnswersWithinTheClientsOwnTimeout() throws Exception {
    ScriptedHttp http = new ScriptedHttp();
    DynamoDbIdempotencyStore store =
        DynamoDbIdempotencyStore.builder(ReviewDynamo.boundedClient(http))
            .tableName(ReviewDynamo.TABLE)
            .renewalExecutor(Runnable::run)
            .renewalConcurrency(1)
            .build();
    List<HeldLease> leases = List.of(ReviewDynamo.claimed(store, "submilli"));
    for (int i = 0; i < 20; i++) { // warm: the renewal path's code loaded and compiled
      assertThat(
              store.extendLeases(leases, Duration.ofSeconds(30), Duration.ofSeconds(5)).extended())
          .hasSize(1);
    }
    http.otherwise("UpdateItem", ScriptedHttp.Fault.HANG); // a server that does not answer
    CountDownLatch answered = new CountDownLatch(1);
    Thread caller =
        new Thread(
            () -> {
              try {
                store.extendLeases(leases, Duration.ofSeconds(30), Duration.ofMillis(1));
              } catch (RuntimeException undecided) {
                // fine: the call answered
              } finally {
                answered.countDown();
              }
            });
    caller.setDaemon(true);
    long start = System.nanoTime();
    caller.start();
    boolean inTime = answered.await(5, TimeUnit.SECONDS);
    long tookMs = (System.nanoTime() - start) / 1_000_000;
    int sent = http.tries("UpdateItem") - 20;
    store.close();
    assertThat(inTime)
        .as(
            "extendLeases(within = 1 ms) answered within 5 s (the client's own API call timeout is"
                + " 2 s); still blocked after %d ms, %d renewal request(s) sent",
            tookMs, sent)
        .isTrue();
  }
}
