package dev.mcpgate.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.mcpgate.core.memory.InMemoryIdempotencyStore;
import dev.mcpgate.core.spi.ClaimState;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;

/**
 * A review of the split of lease renewal and late fences into Renewal, RenewalGroup, LateFencer and
 * FenceWriter (e11d3be), a refactor that must not change behaviour. Real time, short leases, the
 * in-memory store behind a store whose completions and fences fail on demand.
 */
class RenewalSplitReviewTest {
  private static final Duration LEASE = Duration.ofMillis(400);
  private static final ResultMapper<String> MAPPER = ResultMapper.utf8();
  private static final ClaimId ID = new ClaimId("acme", "refund_order", "k");

  private final InMemoryIdempotencyStore memory = InMemoryIdempotencyStore.create();
  private final FaultyFenceStore store = new FaultyFenceStore(memory);

  private static GatePolicy.Builder policy() {
    return GatePolicy.builder()
        .lease(LEASE)
        .leaseRenewal(Duration.ofMillis(100))
        .inFlightWait(Duration.ZERO);
  }

  private static ToolCall call() {
    return ToolCall.of("acme", "refund_order", "k", Map.of("order_id", "ord_9f2"));
  }

  /** Runs an action whose outcome is unknown, and returns its context. */
  private static ClaimContext unknownOutcome(IdempotencyGate gate) {
    AtomicReference<ClaimContext> seen = new AtomicReference<>();
    assertThatThrownBy(
            () ->
                gate.execute(
                        call(),
                        MAPPER,
                        ctx -> {
                          seen.set(ctx);
                          throw new OutcomeUnknownException("the bank timed out");
                        })
                    .orThrow())
        .isInstanceOf(OutcomeUnknownException.class);
    return seen.get();
  }

  /**
   * Regression in e11d3be: {@code isFencedAsUnknown()} was the gate's decision (a fence kept to be
   * written stayed "fenced" unless the late fence found the result stored or the key taken over);
   * it is now the renewal's current phase, and a pending fence whose renewal ends otherwise (the
   * gate closing, here) flips it to false. The key was not released, completed, nor found taken
   * over, and the action may have run; the MCP adapter, which asks after the call returns, would
   * then answer and audit the call as a plain failure of a released key.
   */
  @Test
  void aFenceKeptToBeWrittenIsStillToldAsFencedOnceTheGateClosed() {
    IdempotencyGate gate = IdempotencyGate.builder(store).policy(policy().build()).build();
    store.refusing.set(true); // for good: the close's last try is refused too
    ClaimContext ctx = unknownOutcome(gate);
    assertThat(ctx.isFencedAsUnknown()).as("its fence kept to be written").isTrue();

    gate.close();

    assertThat(memory.find(ID).orElseThrow().state())
        .as("not released, not completed: the action may have run")
        .isEqualTo(ClaimState.IN_PROGRESS);
    assertThat(ctx.isFencedAsUnknown())
        .as("what the gate decided does not change because the gate closed")
        .isTrue();
  }

  /**
   * Regression in e11d3be, the same answer: a late fence that lands, and whose MARKED_UNKNOWN a
   * listener fails on with an Error, ends its renewal as ENDED, not FENCED: the key is fenced as
   * unknown in the store by this attempt, and its context says it is not.
   */
  @Test
  void aLateFenceThatLandedIsToldAsFencedEvenWhenAListenerFailsOnIt() throws Exception {
    IdempotencyGate gate =
        IdempotencyGate.builder(store)
            .policy(policy().build())
            .listener(
                e -> {
                  if (e.type() == GateEvent.Type.MARKED_UNKNOWN) {
                    throw new AssertionError("listener bug (test)");
                  }
                })
            .build();
    try {
      store.refusing.set(true);
      ClaimContext ctx = unknownOutcome(gate);
      store.refusing.set(false);
      awaitTrue(() -> memory.find(ID).orElseThrow().state() == ClaimState.UNKNOWN, "fenced late");
      awaitTrue(() -> gate.engine().renewing() == 0, "no longer renewed");
      assertThat(ctx.isFencedAsUnknown()).as("the store holds this attempt's fence").isTrue();
    } finally {
      gate.close();
    }
  }

  /**
   * Not a regression (its parent does the same, with the task dead instead of sent each period): a
   * fence given up after {@code unknownFence} stops renewing only after STORE_FAILED is told, so a
   * listener that fails on that event with an Error keeps the attempt's lease renewed for as long
   * as the gate lives: the key is never freed, past the time a written fence would have lasted. The
   * same kind of case as LateFenceReviewTest's Error on MARKED_UNKNOWN, on the other branch.
   */
  @Test
  void aFenceGivenUpStopsItsRenewalEvenWhenAListenerFailsOnTheGiveUp() throws Exception {
    AtomicInteger giveUps = new AtomicInteger();
    IdempotencyGate gate =
        IdempotencyGate.builder(store)
            .policy(policy().unknownFence(Duration.ofMillis(600)).build())
            .listener(
                e -> {
                  if (e.type() == GateEvent.Type.STORE_FAILED
                      && e.message().contains("for as long as a fence lasts")) {
                    giveUps.incrementAndGet();
                    throw new AssertionError("listener bug (test)");
                  }
                })
            .build();
    try {
      store.refusing.set(true); // for good
      ClaimContext ctx = unknownOutcome(gate);
      assertThat(ctx).isNotNull();
      awaitTrue(() -> giveUps.get() > 0, "given up after 600 ms");
      Thread.sleep(500); // five periods
      assertThat(gate.engine().renewing())
          .as("a fence given up no longer keeps the lease, whatever a listener does")
          .isZero();
      assertThat(giveUps).as("given up once").hasValue(1);
    } finally {
      gate.close();
    }
  }

  private static void awaitTrue(BooleanSupplier condition, String what)
      throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    while (System.nanoTime() < deadline) {
      if (condition.getAsBoolean()) {
        return;
      }
      Thread.sleep(20);
    }
    throw new AssertionError("not " + what + " within 5 s");
  }
}
