package dev.mcpgate.core.trial;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.core.ClaimId;
import dev.mcpgate.core.FailureReason;
import dev.mcpgate.core.GatePolicy;
import dev.mcpgate.core.GateResult;
import dev.mcpgate.core.IdempotencyGate;
import dev.mcpgate.core.MutableClock;
import dev.mcpgate.core.RefusalReason;
import dev.mcpgate.core.ResultCodec;
import dev.mcpgate.core.ResultMapper;
import dev.mcpgate.core.ToolCall;
import dev.mcpgate.core.memory.InMemoryIdempotencyStore;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * docs/design.md, "Stored results": "The size limit applies to the encoded bytes." and the failure
 * table: a result over maxResultBytes is {@code Failed(RESULT_TOO_LARGE)}, effect YES, and the key
 * is "COMPLETED with a not-stored marker: never runs again" ({@code Refused(RESULT_NOT_STORED)}).
 * Here the plain result fits and only the codec's output (an encryption's overhead) does not.
 */
class SizeLimitAppliesToEncodedBytesTest {

  /** Doubles every result, as a codec with overhead grows it. */
  private static final ResultCodec DOUBLING =
      new ResultCodec() {
        @Override
        public byte[] encode(ClaimId id, byte[] plain) {
          byte[] out = new byte[plain.length * 2];
          System.arraycopy(plain, 0, out, 0, plain.length);
          System.arraycopy(plain, 0, out, plain.length, plain.length);
          return out;
        }

        @Override
        public byte[] decode(ClaimId id, byte[] stored) {
          byte[] out = new byte[stored.length / 2];
          System.arraycopy(stored, 0, out, 0, out.length);
          return out;
        }
      };

  @Test
  void aResultThatFitsButWhoseEncodingDoesNotIsRefusedAndNeverRunsAgain() {
    MutableClock clock = new MutableClock(Instant.parse("2030-01-01T00:00:00Z"));
    InMemoryIdempotencyStore store = InMemoryIdempotencyStore.create(clock);
    AtomicInteger runs = new AtomicInteger();
    ToolCall call = ToolCall.of("acme", "refund_order", "k", Map.of("order_id", "ord_9f2"));
    try (IdempotencyGate gate =
        IdempotencyGate.builder(store)
            .codec(DOUBLING)
            .policy(GatePolicy.builder().maxResultBytes(10).build())
            .build()) {
      GateResult<String> first =
          gate.execute(
              call,
              ResultMapper.utf8(),
              ctx -> {
                runs.incrementAndGet();
                return "sixsix"; // 6 bytes plain, 12 encoded
              });
      assertThat(first)
          .isInstanceOfSatisfying(
              GateResult.Failed.class,
              f -> {
                assertThat(f.reason()).isEqualTo(FailureReason.RESULT_TOO_LARGE);
                assertThat(f.effect()).isEqualTo(GateResult.Effect.YES);
                assertThat(f.retrySafe()).isFalse();
              });

      GateResult<String> retry =
          gate.execute(
              call,
              ResultMapper.utf8(),
              ctx -> {
                runs.incrementAndGet();
                return "sixsix";
              });
      assertThat(retry)
          .isInstanceOfSatisfying(
              GateResult.Refused.class,
              r -> assertThat(r.reason()).isEqualTo(RefusalReason.RESULT_NOT_STORED));
      assertThat(runs).hasValue(1);

      // five bytes plain, ten encoded: at the limit, stored and replayed
      ToolCall other = ToolCall.of("acme", "refund_order", "k2", Map.of("order_id", "ord_9f3"));
      gate.execute(other, ResultMapper.utf8(), ctx -> "fivee");
      assertThat(gate.execute(other, ResultMapper.utf8(), ctx -> "never"))
          .isInstanceOfSatisfying(
              GateResult.Replayed.class, r -> assertThat(r.value()).isEqualTo("fivee"));
    }
  }
}
