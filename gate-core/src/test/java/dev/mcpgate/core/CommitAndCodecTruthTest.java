package dev.mcpgate.core;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.core.FailurePathsTest.UnitOfWork;
import dev.mcpgate.core.memory.InMemoryIdempotencyStore;
import dev.mcpgate.core.spi.ForwardingIdempotencyStore;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * Two findings of the review of "Never twice under load", held: a slow codec in the transactional
 * path runs while the lease is still renewed, and a release whose commit answer was lost while
 * another attempt took the key is told as unknown, never as rolled back.
 */
class CommitAndCodecTruthTest {

  private static ToolCall call(String key) {
    return ToolCall.of("acme", "refund_order", key, Map.of("order_id", "ord_9f2"));
  }

  /**
   * The transactional path once stopped renewing before the mapper's toBytes and the codec's encode
   * ran: a slow codec (an encrypting codec calling a key service) let the lease of a live attempt
   * run out, and a retry took the key over and ran the action a second time. The lease is now
   * renewed until just before the completion statement.
   */
  @Test
  void aSlowCodecInTheTransactionalPathNeverLetsALiveAttemptBeTakenOver() throws Exception {
    InMemoryIdempotencyStore store = InMemoryIdempotencyStore.create();
    Duration lease = Duration.ofMillis(400);
    GatePolicy policy =
        GatePolicy.builder()
            .lease(lease)
            .leaseRenewal(Duration.ofMillis(100))
            .inFlightWait(Duration.ZERO)
            .build();
    ResultCodec slowCodec =
        new ResultCodec() {
          @Override
          public byte[] encode(ClaimId id, byte[] plain) {
            sleep(1500); // a key service that answers slowly, well under any sane timeout
            return plain;
          }

          @Override
          public byte[] decode(ClaimId id, byte[] stored) {
            return stored;
          }
        };
    try (IdempotencyGate gate =
        IdempotencyGate.builder(store).policy(policy).codec(slowCodec).build()) {
      UnitOfWork unit = new UnitOfWork(store);
      AtomicInteger runs = new AtomicInteger();
      CompletableFuture<GateResult<String>> first =
          CompletableFuture.supplyAsync(
              () ->
                  gate.execute(
                      call("k"),
                      ResultMapper.utf8(),
                      unit,
                      (writes, ctx) -> "ran-" + runs.incrementAndGet()));
      sleep(900); // the first attempt is alive (in its codec), renewal stopped at ~0 ms
      ClaimOutcome retry = gate.claim(call("k"));
      first.get(10, TimeUnit.SECONDS); // ends, whatever it came to

      assertThat(retry)
          .as("a retry while the first attempt is alive must not take it over")
          .isInstanceOf(ClaimOutcome.Refused.class);
    }
  }

  /**
   * Finding: a transactional failure result (RELEASE mode) whose COMMIT applied but reported a
   * failure. The resolution's release finds no row of this token (the commit deleted it and a retry
   * claimed the free key meanwhile), find() reads the retry's row, and AttemptRunner.commit throws
   * a lease lost: "this attempt's transaction was rolled back: none of its writes took effect" --
   * while the action's writes WERE committed.
   */
  @Test
  void aCommittedReleaseWhoseAnswerWasLostIsToldUnknownNotRolledBack() {
    MutableClock clock = new MutableClock(Instant.parse("2030-01-01T00:00:00Z"));
    InMemoryIdempotencyStore memory = InMemoryIdempotencyStore.create(clock);
    AtomicBoolean resolving = new AtomicBoolean();
    AtomicReference<IdempotencyGate> other = new AtomicReference<>();
    ForwardingIdempotencyStore store =
        new ForwardingIdempotencyStore(memory) {
          @Override
          public boolean release(ClaimId id, dev.mcpgate.core.LeaseToken token) {
            if (resolving.compareAndSet(true, false)) {
              // a retry of the same key arrives between the real commit and the resolution
              assertThat(other.get().claim(call("k"))).isInstanceOf(ClaimOutcome.Acquired.class);
            }
            return super.release(id, token);
          }
        };
    GatePolicy policy =
        GatePolicy.builder().leaseRenewal(Duration.ZERO).inFlightWait(Duration.ZERO).build();
    ResultMapper<String> failing =
        new ResultMapper<>() {
          @Override
          public byte[] toBytes(String value) {
            return value.getBytes(StandardCharsets.UTF_8);
          }

          @Override
          public String fromBytes(byte[] bytes) {
            return new String(bytes, StandardCharsets.UTF_8);
          }

          @Override
          public boolean isFailure(String value) {
            return true;
          }
        };
    AtomicInteger effects = new AtomicInteger();
    try (IdempotencyGate gate = IdempotencyGate.builder(store).policy(policy).build();
        IdempotencyGate retryGate = IdempotencyGate.builder(memory).policy(policy).build()) {
      other.set(retryGate);
      UnitOfWork unit =
          new UnitOfWork(memory) {
            @Override
            public void commit(List<Runnable> writes) {
              resolving.set(true);
              super.commit(writes);
            }
          };
      unit.commitFault = UnitOfWork.Fault.AFTER_APPLYING;
      GateResult<String> result =
          gate.execute(
              call("k"),
              failing,
              unit,
              (writes, ctx) -> {
                writes.add(effects::incrementAndGet); // the action's own write, in the transaction
                return "declined";
              });

      assertThat(effects).as("the commit applied the action's write").hasValue(1);
      assertThat(result)
          .as("told: unknown, not 'rolled back: none of its writes took effect'")
          .isInstanceOfSatisfying(
              GateResult.Failed.class,
              f -> assertThat(f.reason()).isEqualTo(FailureReason.COMMIT_UNKNOWN));
    }
  }

  private static void sleep(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
