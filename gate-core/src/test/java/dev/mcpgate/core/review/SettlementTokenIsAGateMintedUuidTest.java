package dev.mcpgate.core.review;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.mcpgate.core.IdempotencyGate;
import dev.mcpgate.core.MutableClock;
import dev.mcpgate.core.Reconciler;
import dev.mcpgate.core.ToolCall;
import dev.mcpgate.core.memory.InMemoryIdempotencyStore;
import dev.mcpgate.core.spi.ClaimAttempt;
import dev.mcpgate.core.spi.ClaimRequest;
import dev.mcpgate.core.spi.ForwardingIdempotencyStore;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * Review of 9e52465: {@code LeaseToken}'s documentation says a token minted by the gate is "a
 * random UUID", and the store contract (gate-store-tck) only ever claims with such tokens. A user's
 * store that keeps tokens in that documented form (a native {@code uuid} column, 16 bytes in a
 * binary attribute), and passes the contract, could settle a dead attempt's key before 9e52465;
 * since then the settlement's takeover token, {@code settlement-<uuid>} (47 characters), was
 * refused by it, and no in-progress row whose lease ran out could be settled by an operator any
 * more. (Fixed: the settlement's token keeps the UUID form, of version 8 where a call's is of
 * version 4.)
 */
class SettlementTokenIsAGateMintedUuidTest {

  private static final ToolCall CALL =
      ToolCall.of("acme", "refund_order", "k", Map.of("order_id", "ord_9f2"));

  /** A store keeping tokens as the UUIDs the gate's documentation says they are. */
  static final class UuidTokenStore extends ForwardingIdempotencyStore {
    UuidTokenStore(MutableClock clock) {
      super(InMemoryIdempotencyStore.create(clock));
    }

    @Override
    public ClaimAttempt claim(ClaimRequest request) {
      UUID.fromString(request.token().value()); // as a uuid column would
      return super.claim(request);
    }
  }

  @Test
  void anOperatorSettlesADeadAttemptsKeyInAStoreThatKeepsTokensAsUuids() {
    MutableClock clock = new MutableClock(Instant.parse("2030-01-01T00:00:00Z"));
    try (IdempotencyGate gate = IdempotencyGate.builder(new UuidTokenStore(clock)).build()) {
      gate.claim(CALL); // attempt 1: its process dies
      clock.advance(Duration.ofSeconds(6));

      Throwable thrown =
          catchThrowable(
              () ->
                  assertThat(gate.resolveUnknown(CALL.id(), Reconciler.Verdict.notHappened()))
                      .isTrue());

      assertThat(thrown).as("the settlement's own token is not a UUID").isNull();
    }
  }
}
