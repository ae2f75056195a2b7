package dev.mcpgate.core.trial;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.core.ClaimId;
import dev.mcpgate.core.GateResult;
import dev.mcpgate.core.IdempotencyGate;
import dev.mcpgate.core.MutableClock;
import dev.mcpgate.core.ResultMapper;
import dev.mcpgate.core.ToolCall;
import dev.mcpgate.core.memory.InMemoryIdempotencyStore;
import dev.mcpgate.core.spi.ClaimState;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * docs/design.md, failure table: "plain path: storing the result fails (store, mapper, codec) |
 * Executed(STORE_FAILED) with the value; a STORE_FAILED event | the result | UNKNOWN"; and "The
 * outcomes of a claim": "Exceptions remain for programming errors: a null argument, an Error of the
 * gate's own parts (the mapper, the codec)".
 *
 * <p>What happens for a mapper that throws an Error after the action returned, on the plain path:
 * neither. AttemptRunner.settleResult fences the key and returns {@code Failed(OUTCOME_UNKNOWN)},
 * effect YES, carrying the Error: the caller loses the value the action returned and the Error is
 * not thrown (only orThrow() throws it). The key is fenced UNKNOWN, so nothing runs twice.
 *
 * <p>That is what the docs now say (docs/design.md, the failure table): an Error of the mapper or
 * codec on the plain path is {@code Failed(OUTCOME_UNKNOWN)}, effect YES, the Error its cause. The
 * value is not handed on: a mapper that cannot write it may not be able to give it either.
 */
class MapperErrorOnThePlainPathTest {

  @Test
  void aMapperErrorAfterThePlainActionIsAnOutcomeUnknownThatRanAndFencesTheKey() {
    MutableClock clock = new MutableClock(Instant.parse("2030-01-01T00:00:00Z"));
    InMemoryIdempotencyStore store = InMemoryIdempotencyStore.create(clock);
    ResultMapper<String> broken =
        new ResultMapper<>() {
          @Override
          public byte[] toBytes(String value) {
            throw new AssertionError("the mapper broke (test)");
          }

          @Override
          public String fromBytes(byte[] bytes) {
            return new String(bytes, StandardCharsets.UTF_8);
          }
        };
    ToolCall call = ToolCall.of("acme", "refund_order", "k", Map.of("order_id", "ord_9f2"));
    try (IdempotencyGate gate = IdempotencyGate.builder(store).build()) {
      GateResult<String> r = null;
      Throwable thrown = null;
      try {
        r = gate.execute(call, broken, ctx -> "refunded");
      } catch (Throwable t) {
        thrown = t;
      }
      assertThat(store.find(new ClaimId("acme", "refund_order", "k")))
          .hasValueSatisfying(row -> assertThat(row.state()).isEqualTo(ClaimState.UNKNOWN));
      assertThat(thrown).as("not thrown: a value").isNull();
      assertThat(r)
          .isInstanceOfSatisfying(
              GateResult.Failed.class,
              f -> {
                assertThat(f.reason()).isEqualTo(dev.mcpgate.core.FailureReason.OUTCOME_UNKNOWN);
                assertThat(f.effect()).isEqualTo(GateResult.Effect.YES);
                assertThat(f.cause()).isInstanceOf(AssertionError.class);
              });
    }
  }
}
