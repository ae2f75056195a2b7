package dev.mcpgate.dynamodb.review;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.core.ClaimOutcome;
import dev.mcpgate.core.FailureReason;
import dev.mcpgate.core.GatePolicy;
import dev.mcpgate.core.GateResult;
import dev.mcpgate.core.IdempotencyGate;
import dev.mcpgate.core.ResultMapper;
import dev.mcpgate.core.ToolCall;
import dev.mcpgate.core.spi.ClaimAttempt;
import dev.mcpgate.core.spi.ClaimRequest;
import dev.mcpgate.core.spi.ForwardingIdempotencyStore;
import dev.mcpgate.dynamodb.DynamoDbIdempotencyStore;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.InstantSource;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.http.ExecutableHttpRequest;
import software.amazon.awssdk.http.HttpExecuteRequest;
import software.amazon.awssdk.http.SdkHttpClient;
import software.amazon.awssdk.retries.DefaultRetryStrategy;
import software.amazon.awssdk.retries.api.BackoffStrategy;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.GetItemRequest;

/**
 * Review 8 of 5c8a026, through the gate and in real time. A claim's {@code PutItem} lands (a 2 s
 * lease) and its answer is lost; the SDK's retry is refused by the request's own item; the read of
 * the item fails after 3.5 s, past the lease and the store's 1 s safety margin. The next round
 * finds the request's own item and the store answers Acquired, with a lease that is over: another
 * attempt may take the key over, and does, right after that read, and runs the action. The gate
 * counts a lease from just before the claim was sent, so it renews a late claim's lease before the
 * action; the renewal is refused (the key is the other attempt's) and the action does not run here:
 * it runs once.
 */
class LateAcquiredIsConfirmedBeforeTheActionTest {
  private static final GatePolicy POLICY =
      GatePolicy.builder()
          .lease(Duration.ofSeconds(2))
          .leaseRenewal(Duration.ofMillis(500))
          .build();

  @Test
  void aClaimAcquiredAfterItsLeaseRanOutDoesNotRunWhereAnotherAttemptTookTheKey() throws Exception {
    Late late =
        late(
            (ours, call, runs) ->
                ours.execute(call, ResultMapper.utf8(), ctx -> "ran " + runs.incrementAndGet()));
    assertThat(late.outcome)
        .as("this call: its lease was taken over before its action, which did not run")
        .isInstanceOfSatisfying(
            GateResult.Failed.class,
            f -> assertThat(f.reason()).isEqualTo(FailureReason.LEASE_LOST));
  }

  /**
   * Review 9: the same through the step-by-step API ({@link IdempotencyGate#claim}), where the
   * caller acts on Acquired itself: the late claim's lease is confirmed before it is returned, and
   * a claim whose key was taken over claims again.
   */
  @Test
  void aStepByStepClaimIsNotToldAcquiredForAKeyAnotherAttemptTookOver() throws Exception {
    Late late =
        late(
            (ours, call, runs) -> {
              ClaimOutcome outcome = ours.claim(call);
              if (outcome instanceof ClaimOutcome.Acquired claim) {
                runs.incrementAndGet(); // the effect
                ours.complete(claim, "mine".getBytes(StandardCharsets.UTF_8), false);
              }
              return outcome;
            });
    assertThat(late.outcome)
        .as("not Acquired: the claim again replays the other attempt's result")
        .isInstanceOf(ClaimOutcome.Replayed.class);
  }

  /** What this request's gate does with the call; the effect counts {@code runs}. */
  private interface Ours {
    Object call(IdempotencyGate ours, ToolCall call, AtomicInteger runs);
  }

  private record Late(Object outcome) {}

  /**
   * Runs {@code ours} where its claim answers late (the lost put, the slow failed read), and
   * another attempt takes the key over right after the read that finds this request's own item;
   * checks that the store answered a late Acquired and that the effect ran once.
   */
  private static Late late(Ours ours) throws Exception {
    ToolCall call = ToolCall.of("review8", "refund", UUID.randomUUID().toString(), Map.of("a", 1));
    AtomicInteger runs = new AtomicInteger();
    AtomicReference<ClaimAttempt> told = new AtomicReference<>();
    AtomicReference<GateResult<String>> theirs = new AtomicReference<>();
    ScriptedHttp http =
        new ScriptedHttp()
            .script("PutItem", ScriptedHttp.Fault.LAND_LOSE, ScriptedHttp.Fault.PASS)
            .script("GetItem", ScriptedHttp.Fault.THROTTLE);
    AtomicInteger reads = new AtomicInteger();
    try (DynamoDbClient direct = ReviewDynamo.client(ReviewDynamo.endpoint());
        DynamoDbIdempotencyStore others = ReviewDynamo.store(direct, InstantSource.system());
        IdempotencyGate other = IdempotencyGate.builder(others).policy(POLICY).build()) {
      ExecutionInterceptor anotherAttemptAfterTheRead =
          new ExecutionInterceptor() {
            @Override
            public void afterExecution(
                Context.AfterExecution context, ExecutionAttributes attributes) {
              if (context.request() instanceof GetItemRequest && reads.incrementAndGet() == 1) {
                theirs.set(
                    other.execute(
                        call, ResultMapper.utf8(), ctx -> "ran " + runs.incrementAndGet()));
              }
            }
          };
      try (DynamoDbClient client =
              ReviewDynamo.client(
                  ReviewDynamo.endpoint(),
                  b ->
                      b.httpClient(new SlowFirstRead(http, Duration.ofMillis(3_500)))
                          .overrideConfiguration(
                              c ->
                                  c.addExecutionInterceptor(anotherAttemptAfterTheRead)
                                      .retryStrategy(
                                          DefaultRetryStrategy.standardStrategyBuilder()
                                              .maxAttempts(3)
                                              .backoffStrategy(BackoffStrategy.retryImmediately())
                                              .retryOnException(
                                                  t -> t instanceof SdkClientException)
                                              .useClientDefaults(false)
                                              .build())));
          DynamoDbIdempotencyStore store = ReviewDynamo.store(client, InstantSource.system());
          IdempotencyGate gate =
              IdempotencyGate.builder(
                      new ForwardingIdempotencyStore(store) {
                        @Override
                        public ClaimAttempt claim(ClaimRequest request) {
                          ClaimAttempt attempt = super.claim(request);
                          told.compareAndSet(null, attempt); // the first claim's answer
                          return attempt;
                        }
                      })
                  .policy(POLICY)
                  .build()) {

        Object outcome = ours.call(gate, call, runs);

        assertThat(http.landed).as("the PutItem reached the server, its answer lost").hasValue(1);
        assertThat(told.get())
            .as("the store answered late: Acquired, with a lease over at its answer")
            .isInstanceOfSatisfying(
                ClaimAttempt.Acquired.class,
                a -> assertThat(a.record().leaseExpiresAt()).isBefore(a.storeNow()));
        assertThat(theirs.get())
            .as("the other attempt took the key over and ran")
            .isInstanceOf(GateResult.Executed.class);
        assertThat(runs).as("the action ran once").hasValue(1);
        return new Late(outcome);
      }
    }
  }

  /** Holds the first GetItem back by {@code takes}, in real time: a slow, failing read. */
  private static final class SlowFirstRead implements SdkHttpClient {
    private final ScriptedHttp scripted;
    private final Duration takes;
    private final AtomicBoolean done = new AtomicBoolean();

    SlowFirstRead(ScriptedHttp scripted, Duration takes) {
      this.scripted = scripted;
      this.takes = takes;
    }

    @Override
    public ExecutableHttpRequest prepareRequest(HttpExecuteRequest request) {
      String target = request.httpRequest().firstMatchingHeader("X-Amz-Target").orElse("");
      if (target.endsWith(".GetItem") && done.compareAndSet(false, true)) {
        try {
          Thread.sleep(takes.toMillis());
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
      return scripted.prepareRequest(request);
    }

    @Override
    public String clientName() {
      return "slow-first-read";
    }

    @Override
    public void close() {
      scripted.close();
    }
  }
}
