package dev.mcpgate.dynamodb.review;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.core.spi.HeldLease;
import dev.mcpgate.dynamodb.DynamoDbIdempotencyStore;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.http.ExecutableHttpRequest;
import software.amazon.awssdk.http.HttpExecuteRequest;
import software.amazon.awssdk.http.HttpExecuteResponse;
import software.amazon.awssdk.http.SdkHttpClient;
import software.amazon.awssdk.http.apache.ApacheHttpClient;

/**
 * A slow store (the fourth round's "slow" fault): the renewal of the first lease is answered
 * (extended) just before the call's deadline, a fraction of a millisecond before it. The next lease
 * of the same sender is then sent with that fraction as its API call timeout, which the SDK reads
 * as 0 ms, that is no timeout at all (the client's own, 2 s here, is overridden too). Its request
 * meets a connection that does not answer, and blocks the renewal thread for as long as the HTTP
 * client lets it. Swept over the fraction, so that it does not rest on one timing. (Found in
 * review; every request now carries a timeout of at least 1 ms.)
 */
class SlowAnswerThenUnboundedRenewalReviewTest {
  private static volatile long answerAtNanos; // when the first UpdateItem of a call is answered
  private static final AtomicInteger updatesInCall = new AtomicInteger();
  private static final AtomicInteger hanging = new AtomicInteger();
  private static final AtomicInteger hungLongerThanASecond = new AtomicInteger();

  /** Answers the first UpdateItem of a call at answerAtNanos; never answers the later ones. */
  private static final class SlowThenHung implements SdkHttpClient {
    private final SdkHttpClient real = ApacheHttpClient.create();
    volatile boolean armed;

    @Override
    public ExecutableHttpRequest prepareRequest(HttpExecuteRequest request) {
      String target = request.httpRequest().firstMatchingHeader("X-Amz-Target").orElse("");
      if (!armed || !target.endsWith("UpdateItem")) {
        return real.prepareRequest(request);
      }
      int n = updatesInCall.incrementAndGet();
      ExecutableHttpRequest passed = n == 1 ? real.prepareRequest(request) : null;
      Thread[] caller = new Thread[1];
      return new ExecutableHttpRequest() {
        @Override
        public HttpExecuteResponse call() throws IOException {
          if (passed != null) {
            HttpExecuteResponse answer = passed.call();
            long wait;
            while ((wait = answerAtNanos - System.nanoTime()) > 0) {
              if (wait > 200_000) {
                LockSupport.parkNanos(wait - 150_000);
              } else {
                Thread.onSpinWait();
              }
            }
            return answer;
          }
          caller[0] = Thread.currentThread();
          hanging.incrementAndGet();
          long start = System.nanoTime();
          try {
            Thread.sleep(10_000);
            throw new IOException("injected hang ended");
          } catch (InterruptedException e) {
            throw new InterruptedIOException("injected hang interrupted");
          } finally {
            if (System.nanoTime() - start > 1_000_000_000L) {
              hungLongerThanASecond.incrementAndGet();
            }
            hanging.decrementAndGet();
          }
        }

        @Override
        public void abort() {
          if (passed != null) {
            passed.abort();
          }
          Thread t = caller[0];
          if (t != null) {
            t.interrupt();
          }
        }
      };
    }

    @Override
    public String clientName() {
      return "slow-then-hung";
    }

    @Override
    public void close() {
      real.close();
    }
  }

  @Test
  void aLeaseSentAfterASlowAnswerStillHasItsDeadline() throws Exception {
    SlowThenHung http = new SlowThenHung();
    DynamoDbIdempotencyStore store =
        DynamoDbIdempotencyStore.builder(ReviewDynamo.boundedClient(http))
            .tableName(ReviewDynamo.TABLE)
            .renewalConcurrency(1) // one sender: the second lease follows the first
            .build();
    List<HeldLease> leases =
        List.of(
            ReviewDynamo.claimed(store, "slow-answer"), ReviewDynamo.claimed(store, "slow-answer"));
    for (int i = 0; i < 30; i++) { // warm
      store.extendLeases(leases, Duration.ofSeconds(60), Duration.ofSeconds(5));
    }
    http.armed = true;
    int calls = 0;
    long lastEnd = 0;
    for (int i = 0; i < 40 && hanging.get() == 0; i++) {
      calls++;
      updatesInCall.set(0);
      Duration within = Duration.ofMillis(40);
      long fractionNanos = 50_000L + (i % 20) * 45_000L; // 0.05 .. 0.9 ms before the deadline
      long start = System.nanoTime();
      answerAtNanos = start + within.toNanos() - fractionNanos;
      try {
        store.extendLeases(leases, Duration.ofSeconds(60), within);
      } catch (RuntimeException undecided) {
        // fine: the call answered
      }
      lastEnd = System.nanoTime();
      Thread.sleep(30);
    }
    // a renewal request has its deadline: none is still blocked 3 s after its call's deadline
    Thread.sleep(3_000);
    int blocked = hanging.get();
    long sinceMs = (System.nanoTime() - lastEnd) / 1_000_000;
    store.close();
    assertThat(blocked + hungLongerThanASecond.get())
        .as(
            "renewal requests still blocked %d ms after their 40 ms call ended, or that were"
                + " blocked over a second (after %d calls)",
            sinceMs, calls)
        .isZero();
  }
}
