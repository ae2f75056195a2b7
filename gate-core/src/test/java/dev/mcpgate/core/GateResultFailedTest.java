package dev.mcpgate.core;

import static dev.mcpgate.core.Failures.failed;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.mcpgate.core.memory.InMemoryIdempotencyStore;
import java.io.IOException;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The gate's failures are a case of the result, with what is known of the effect; {@code orThrow()}
 * turns them into exceptions for callers who prefer those.
 */
class GateResultFailedTest {
  private final InMemoryIdempotencyStore store = InMemoryIdempotencyStore.create();
  private final IdempotencyGate gate = IdempotencyGate.builder(store).build();
  private final AtomicInteger runs = new AtomicInteger();

  private static ToolCall call(String key) {
    return ToolCall.of("acme", "refund_order", key, Map.of("order", "o-1"));
  }

  /** A codec that can no longer read what it stored (its key was dropped, say). */
  private static final ResultCodec FORGETFUL =
      new ResultCodec() {
        @Override
        public byte[] encode(ClaimId id, byte[] plain) {
          return plain;
        }

        @Override
        public byte[] decode(ClaimId id, byte[] stored) {
          throw new IdempotencyException("key kms-2026-12 of " + id + " is gone (test)");
        }
      };

  @Test
  void aStoredResultTheCodecCannotReadIsAFailureThatSaysItRanBeforeAndRunsNothing() {
    gate.execute(call("k"), ResultMapper.utf8(), ctx -> "refund " + runs.incrementAndGet());
    IdempotencyGate rotated = IdempotencyGate.builder(store).codec(FORGETFUL).build();

    GateResult.Failed<?> f =
        failed(
            rotated.execute(
                call("k"), ResultMapper.utf8(), ctx -> "again " + runs.incrementAndGet()),
            FailureReason.RESULT_UNREADABLE);

    assertThat(runs).as("the replay ran nothing").hasValue(1);
    assertThat(f.effect()).isEqualTo(GateResult.Effect.YES);
    assertThat(f.retrySafe()).isFalse();
    assertThat(f.attempt()).as("no attempt of this call ran").isZero();
    assertThat(f.argsHash()).isNotNull();
    assertThat(f.cause()).hasMessageContaining("kms-2026-12");
    assertThatThrownBy(f::orThrow)
        .isInstanceOfSatisfying(GateOutcomeException.class, e -> assertThat(e.result()).isSameAs(f))
        .hasMessageContaining("cannot be read back");
  }

  @Test
  void aStoredResultTheMapperCannotReadIsAFailureToo() {
    gate.execute(call("k"), ResultMapper.utf8(), ctx -> "refund");
    ResultMapper<String> broken =
        new ResultMapper<>() {
          @Override
          public byte[] toBytes(String value) {
            return value.getBytes(java.nio.charset.StandardCharsets.UTF_8);
          }

          @Override
          public String fromBytes(byte[] bytes) {
            throw new IllegalArgumentException("not a refund (test)");
          }
        };

    failed(gate.execute(call("k"), broken, ctx -> "again"), FailureReason.RESULT_UNREADABLE);
  }

  @Test
  void theActionsOwnExceptionIsTheFailuresCauseAndOrThrowThrowsItAsItWas() {
    IllegalStateException declined = new IllegalStateException("declined (test)");
    GateResult<String> r =
        gate.execute(
            call("k"),
            ResultMapper.utf8(),
            ctx -> {
              runs.incrementAndGet();
              throw declined;
            });

    GateResult.Failed<?> f = failed(r, FailureReason.ACTION_FAILED);
    assertThat(f.cause()).isSameAs(declined);
    assertThat(f.effect()).isEqualTo(GateResult.Effect.NO);
    assertThat(f.retrySafe()).isTrue();
    assertThat(f.attempt()).isEqualTo(1);
    assertThatThrownBy(r::orThrow).isSameAs(declined);
    assertThat(store.find(call("k").id())).as("released").isEmpty();
  }

  @Test
  void aCheckedExceptionIsWrappedByOrThrowOnly() {
    IOException disk = new IOException("disk full (test)");
    GateResult<String> r =
        gate.execute(
            call("k"),
            ResultMapper.utf8(),
            ctx -> {
              throw disk;
            });

    assertThat(failed(r, FailureReason.ACTION_FAILED).cause()).isSameAs(disk);
    assertThatThrownBy(r::orThrow).isInstanceOf(ActionFailedException.class).hasCause(disk);
  }

  @Test
  void anErrorOfTheActionIsCarriedAfterItsClaimIsSettledAndOrThrowThrowsIt() {
    AssertionError broke = new AssertionError("the action broke (test)");
    GateResult<String> r =
        gate.execute(
            call("k"),
            ResultMapper.utf8(),
            ctx -> {
              throw broke;
            });

    assertThat(failed(r, FailureReason.ACTION_FAILED).cause()).isSameAs(broke);
    assertThat(store.find(call("k").id())).as("released before the result was made").isEmpty();
    assertThatThrownBy(r::orThrow).isSameAs(broke);
  }

  @Test
  void aRefusalIsThrownByOrThrowWithTheRefusalInside() {
    gate.execute(call("k"), ResultMapper.utf8(), ctx -> "refund");
    GateResult<String> conflict =
        gate.execute(
            ToolCall.of("acme", "refund_order", "k", Map.of("order", "o-2")),
            ResultMapper.utf8(),
            ctx -> "other");

    assertThatThrownBy(conflict::orThrow)
        .isInstanceOfSatisfying(
            GateOutcomeException.class,
            e -> assertThat(e.result()).isInstanceOf(GateResult.Refused.class));
    assertThat(gate.execute(call("k"), ResultMapper.utf8(), ctx -> "x").orThrow())
        .isEqualTo("refund");
  }

  @Test
  void aFailureNeedsAReasonAndAnEffect() {
    ClaimId id = call("k").id();
    assertThatThrownBy(
            () ->
                new GateResult.Failed<String>(
                    id, null, GateResult.Effect.NO, true, "m", null, 0, null, null, null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("null");
  }
}
