package dev.mcpgate.core;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.core.memory.InMemoryIdempotencyStore;
import dev.mcpgate.core.spi.ClaimAttempt;
import dev.mcpgate.core.spi.ClaimRequest;
import dev.mcpgate.core.spi.ForwardingIdempotencyStore;
import java.net.SocketTimeoutException;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Review: the cause walk of GatePolicy.isOutcomeUnknown stops at a nested gate's own answer and at
 * a loop.
 */
class NestedAndCyclicCausesTest {

  private static ToolCall call(String tool) {
    return ToolCall.of("acme", tool, UUID.randomUUID().toString(), Map.of("o", 1));
  }

  /**
   * J1. A cause chain with a cycle longer than one (A -> B -> A; Throwable.initCause refuses only A
   * -> A). The walk stops only on a self-reference, so it spins for ever: the caller never gets an
   * answer, the key is never settled.
   */
  @Test
  void aCyclicCauseChainIsAnsweredAndDoesNotHangTheCaller() throws Exception {
    IdempotencyGate gate = IdempotencyGate.builder(InMemoryIdempotencyStore.create()).build();
    ToolCall call = call("refund_order");
    AtomicInteger refunds = new AtomicInteger();
    CompletableFuture<GateResult<String>> first = new CompletableFuture<>();
    Thread t =
        new Thread(
            () ->
                first.complete(
                    gate.execute(
                        call,
                        ResultMapper.utf8(),
                        ctx -> {
                          refunds.incrementAndGet();
                          IllegalStateException a = new IllegalStateException("a");
                          IllegalArgumentException b = new IllegalArgumentException("b");
                          a.initCause(b);
                          b.initCause(a);
                          throw a;
                        })));
    t.setDaemon(true); // on the current code it spins until the JVM exits
    t.start();
    GateResult<String> r;
    try {
      r = first.get(10, TimeUnit.SECONDS);
    } catch (java.util.concurrent.TimeoutException e) {
      StackTraceElement[] where = t.getStackTrace();
      throw new AssertionError(
          "the gate did not answer in 10 s; its thread is at "
              + (where.length > 0 ? where[0] : "?")
              + " / "
              + (where.length > 1 ? where[1] : "?"));
    }
    assertThat(r).isInstanceOf(GateResult.Failed.class);
    assertThat(refunds).hasValue(1);
    gate.close();
  }

  /**
   * J2. A nested gate whose store timed out on the claim: the inner action never ran and the inner
   * gate says so (STORE_UNAVAILABLE, effect NO). orThrow() throws that answer as a
   * GateOutcomeException; the walk steps past the gate's own answer into its causes, finds the
   * store's SocketTimeoutException (an InterruptedIOException) and fences the outer key: the caller
   * is told "unknown" though nothing ran, and the key is stuck for the unknown fence.
   */
  @Test
  void aNestedGatesNoEffectAnswerCausedByAStoreReadTimeoutReleasesTheOuterKey() {
    ForwardingIdempotencyStore timingOut =
        new ForwardingIdempotencyStore(InMemoryIdempotencyStore.create()) {
          @Override
          public ClaimAttempt claim(ClaimRequest request) {
            throw new StoreUnavailableException(
                "claim timed out (test)", new SocketTimeoutException("Read timed out"));
          }
        };
    AtomicInteger innerRuns = new AtomicInteger();
    try (IdempotencyGate outerGate =
            IdempotencyGate.builder(InMemoryIdempotencyStore.create()).build();
        IdempotencyGate innerGate = IdempotencyGate.builder(timingOut).build()) {
      ToolCall outerCall = call("place_order");
      GateResult<String> outer =
          outerGate.execute(
              outerCall,
              ResultMapper.utf8(),
              ctx -> {
                GateResult<String> inner =
                    innerGate.execute(
                        call("charge_card"),
                        ResultMapper.utf8(),
                        ictx -> "charged " + innerRuns.incrementAndGet());
                assertThat(inner)
                    .isInstanceOfSatisfying(
                        GateResult.Failed.class,
                        f -> assertThat(f.effect()).isEqualTo(GateResult.Effect.NO));
                return inner.orThrow();
              });
      assertThat(innerRuns).hasValue(0);
      assertThat(outer).isInstanceOf(GateResult.Failed.class);
      GateResult.Failed<?> f = (GateResult.Failed<?>) outer;
      assertThat(f.effect())
          .as("nothing ran (%s: %s)", f.reason(), f.message())
          .isEqualTo(GateResult.Effect.NO);
      assertThat(outerGate.find(outerCall.id()))
          .as("the outer key is released: a retry may run")
          .isEmpty();
    }
  }

  /**
   * J3 (new in ad39ce8b). The same nested gate, its store refusing the connection (nothing was
   * claimed, nothing ran: STORE_UNAVAILABLE, effect NO), under an outer policy that names its
   * provider's I/O failures as unknown. Before, the predicate saw only the gate's answer and the
   * outer key was released; now it is tested on the answer's causes, matches the store's
   * ConnectException, and the outer key is fenced.
   */
  @Test
  void anOuterPredicateIsNotAppliedToTheCausesOfANestedGatesNoEffectAnswer() {
    ForwardingIdempotencyStore refusing =
        new ForwardingIdempotencyStore(InMemoryIdempotencyStore.create()) {
          @Override
          public ClaimAttempt claim(ClaimRequest request) {
            throw new StoreUnavailableException(
                "store down (test)", new java.net.ConnectException("Connection refused"));
          }
        };
    AtomicInteger innerRuns = new AtomicInteger();
    GatePolicy ioIsUnknown =
        GatePolicy.builder().outcomeUnknownWhen(t -> t instanceof java.io.IOException).build();
    try (IdempotencyGate outerGate =
            IdempotencyGate.builder(InMemoryIdempotencyStore.create()).policy(ioIsUnknown).build();
        IdempotencyGate innerGate = IdempotencyGate.builder(refusing).build()) {
      ToolCall outerCall = call("place_order");
      GateResult<String> outer =
          outerGate.execute(
              outerCall,
              ResultMapper.utf8(),
              ctx ->
                  innerGate
                      .execute(
                          call("charge_card"),
                          ResultMapper.utf8(),
                          ictx -> "charged " + innerRuns.incrementAndGet())
                      .orThrow());
      assertThat(innerRuns).hasValue(0);
      GateResult.Failed<?> f = (GateResult.Failed<?>) outer;
      assertThat(f.effect())
          .as("nothing ran (%s: %s)", f.reason(), f.message())
          .isEqualTo(GateResult.Effect.NO);
      assertThat(outerGate.find(outerCall.id())).isEmpty();
    }
  }
}
