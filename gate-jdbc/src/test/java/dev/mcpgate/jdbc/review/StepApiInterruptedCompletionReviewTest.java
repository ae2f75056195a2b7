package dev.mcpgate.jdbc.review;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.mcpgate.core.ClaimOutcome;
import dev.mcpgate.core.GatePolicy;
import dev.mcpgate.core.GateResult;
import dev.mcpgate.core.IdempotencyGate;
import dev.mcpgate.core.ResultMapper;
import dev.mcpgate.core.ToolCall;
import dev.mcpgate.jdbc.JdbcIdempotencyStore;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The step-by-step API (claim, then complete / markUnknown) on a thread whose interrupt flag is set
 * after the effect ran (a request timeout, an executor's cancel(true)). The execute path clears the
 * flag before its completion ("an interrupted thread cannot borrow a pooled connection",
 * AttemptRunner, FailureSettler.settle); the step API's complete and markUnknown do not: when the
 * pool has no idle connection at that moment, HikariCP refuses the interrupted thread at once
 * ("Interrupted during connection acquisition"), the result is not stored, the fence is not written
 * either, nothing renews a step claim, and once its lease runs out a retry with the same key runs
 * the effect a second time.
 */
class StepApiInterruptedCompletionReviewTest {
  @Test
  void anInterruptedStepCompletionDoesNotLetARetryRunTheEffectAgain() throws Exception {
    String name = "step-interrupt-" + UUID.randomUUID();
    try (HikariDataSource ds = ReviewDatabases.h2(name, 1);
        JdbcIdempotencyStore store =
            JdbcIdempotencyStore.builder(ds)
                .tableName("step_claims")
                .createSchemaIfMissing(true)
                .build();
        IdempotencyGate gate =
            IdempotencyGate.builder(store)
                .policy(GatePolicy.builder().lease(Duration.ofSeconds(1)).build())
                .build()) {
      store.verify();
      ToolCall call = ToolCall.of("t", "refund_order", "k-" + UUID.randomUUID(), Map.of("o", 1));
      AtomicInteger effects = new AtomicInteger();

      ClaimOutcome.Acquired claim = (ClaimOutcome.Acquired) gate.claim(call);
      effects.incrementAndGet(); // the refund happened

      // another request holds the pool's one connection for a moment
      Thread caller = Thread.currentThread();
      CountDownLatch held = new CountDownLatch(1);
      AtomicBoolean callerDone = new AtomicBoolean();
      Thread other =
          new Thread(
              () -> {
                try (Connection c = ds.getConnection()) {
                  held.countDown();
                  // give it back once the caller waits for it, or has given up without waiting
                  while (!callerDone.get() && caller.getState() != Thread.State.TIMED_WAITING) {
                    Thread.onSpinWait();
                  }
                } catch (Exception e) {
                  throw new IllegalStateException(e);
                }
              });
      other.start();
      assertThat(held.await(30, TimeUnit.SECONDS)).isTrue();

      List<String> told = new ArrayList<>();
      Thread.currentThread().interrupt(); // the transport cancelled as the effect returned
      try {
        byte[] result = "refunded".getBytes(StandardCharsets.UTF_8);
        told.add("complete -> " + gate.complete(claim, result, false));
      } catch (RuntimeException e) {
        told.add("complete threw " + e);
        try {
          told.add("markUnknown -> " + gate.markUnknown(claim));
        } catch (RuntimeException e2) {
          told.add("markUnknown threw " + e2);
        }
      } finally {
        callerDone.set(true);
      }
      boolean flagKept = Thread.interrupted();
      other.join(30_000);
      System.err.println("[review] " + told);

      // the model retries with the same key once the lease has run out (by the store's clock)
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      while (!store.now().isAfter(claim.leaseExpiresAt().plusMillis(50))
          && System.nanoTime() < deadline) {
        Thread.sleep(50);
      }
      GateResult<String> retry =
          gate.execute(
              call,
              ResultMapper.utf8(),
              ctx -> {
                effects.incrementAndGet();
                return "refunded again";
              });
      System.err.println("[review] retry: " + retry);
      assertThat(flagKept).isTrue();
      assertThat(effects.get())
          .as(
              "the effect ran once; its completion on an interrupted thread was told %s, and a"
                  + " retry with the same key was %s",
              told, retry)
          .isEqualTo(1);
    }
  }
}
