package dev.mcpgate.core.trial;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.core.ClaimId;
import dev.mcpgate.core.GateResult;
import dev.mcpgate.core.IdempotencyGate;
import dev.mcpgate.core.LeaseToken;
import dev.mcpgate.core.MutableClock;
import dev.mcpgate.core.ResultMapper;
import dev.mcpgate.core.ToolCall;
import dev.mcpgate.core.memory.InMemoryIdempotencyStore;
import dev.mcpgate.core.spi.ClaimRequest;
import dev.mcpgate.core.spi.StoredResult;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * docs/design.md, "Canonical JSON (version 1)": "A hash of an unknown version fails closed"; and
 * "The outcomes of a claim": "{@code gate.execute(call, mapper, action)} gives a {@code
 * GateResult}, for every outcome it decides", exceptions remaining for programming errors (a null
 * argument, an Error of the gate's own parts).
 *
 * <p>A row written by a newer MCP Gate (a {@code v2:} hash) while an older replica still serves the
 * tool (a rolling upgrade) is not a programming error of the caller. Expected: a {@code Failed}
 * that says nothing ran. What happens: {@code ArgumentHasher.matches} throws an {@code
 * IdempotencyException} inside the claimer, which the engine does not catch, and {@code execute}
 * throws it instead of returning a result.
 *
 * <p>Kept as it is, and documented (docs/design.md, "Canonical JSON"): there is one version today,
 * so such a row can only come from a store written by hand or a future MCP Gate, whose upgrade note
 * will say how replicas of two versions share a table. Nothing runs, and the exception names the
 * version. This test pins that.
 */
class UnknownHashVersionIsAFailedResultTest {

  @Test
  void aStoredHashOfAnotherVersionIsAnExceptionAndNothingRuns() {
    MutableClock clock = new MutableClock(Instant.parse("2030-01-01T00:00:00Z"));
    InMemoryIdempotencyStore store = InMemoryIdempotencyStore.create(clock);
    ClaimId id = new ClaimId("acme", "refund_order", "k");
    // a newer replica claimed and completed the key under its own canonical form
    LeaseToken token = LeaseToken.random();
    store.claim(
        new ClaimRequest(
            id, "v2:" + "ab".repeat(32), token, Duration.ofSeconds(5), Duration.ofHours(24)));
    store.complete(
        id,
        token,
        new StoredResult(StoredResult.Kind.VALUE, "first".getBytes()),
        Duration.ofHours(24));

    AtomicInteger runs = new AtomicInteger();
    try (IdempotencyGate gate = IdempotencyGate.builder(store).build()) {
      GateResult<String>[] result = new GateResult[1];
      Throwable thrown = null;
      try {
        result[0] =
            gate.execute(
                ToolCall.of("acme", "refund_order", "k", Map.of("order_id", "ord_9f2")),
                ResultMapper.utf8(),
                ctx -> {
                  runs.incrementAndGet();
                  return "second";
                });
      } catch (RuntimeException e) {
        thrown = e;
      }
      assertThat(runs).as("fails closed: nothing runs").hasValue(0);
      assertThat(thrown)
          .as("an IdempotencyException naming the stored hash's version")
          .isInstanceOf(dev.mcpgate.core.IdempotencyException.class)
          .hasMessageContaining("has version v2,");
      assertThat(result[0]).isNull();
    }
  }
}
