package dev.mcpgate.core;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.core.memory.InMemoryIdempotencyStore;
import dev.mcpgate.core.spi.ClaimState;
import java.io.UncheckedIOException;
import java.lang.reflect.UndeclaredThrowableException;
import java.net.SocketTimeoutException;
import java.net.http.HttpTimeoutException;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * What means "the outcome is unknown" is read from the action's exception and its causes:
 * frameworks wrap what a tool threw (Spring AI in an unchecked exception, Reactor's {@code block()}
 * a checked one), and a wrapper must not turn an unknown outcome into a released key whose retry
 * runs the effect again.
 */
class OutcomeUnknownCausesTest {

  private static void fencedAndNotRunAgain(GatePolicy policy, Throwable thrown) {
    try (IdempotencyGate gate =
        IdempotencyGate.builder(InMemoryIdempotencyStore.create()).policy(policy).build()) {
      ToolCall call =
          ToolCall.of("acme", "refund_order", UUID.randomUUID().toString(), Map.of("o", 1));
      AtomicInteger refunds = new AtomicInteger();
      GateResult<String> first =
          gate.execute(
              call,
              ResultMapper.utf8(),
              ctx -> {
                refunds.incrementAndGet();
                if (thrown instanceof Error e) {
                  throw e;
                }
                throw (Exception) thrown;
              });
      GateResult<String> retry =
          gate.execute(call, ResultMapper.utf8(), ctx -> "refund " + refunds.incrementAndGet());
      assertThat(first)
          .isInstanceOfSatisfying(
              GateResult.Failed.class,
              f -> assertThat(f.reason()).isEqualTo(FailureReason.OUTCOME_UNKNOWN));
      assertThat(gate.find(call.id()).orElseThrow().state()).isEqualTo(ClaimState.UNKNOWN);
      assertThat(retry).isInstanceOf(GateResult.Refused.class);
      assertThat(refunds).as("refunds run, %s thrown", thrown).hasValue(1);
    }
  }

  @Test
  void anOutcomeUnknownExceptionWrappedByAFrameworkFencesTheKey() {
    fencedAndNotRunAgain(
        GatePolicy.defaults(),
        new IllegalStateException(
            "Error invoking method: refund", new OutcomeUnknownException("x")));
  }

  @Test
  void aCheckedExceptionThePolicyNamesFencesTheKeyWhenCarriedInAnUncheckedOne() {
    fencedAndNotRunAgain(
        GatePolicy.builder().outcomeUnknownWhen(t -> t instanceof HttpTimeoutException).build(),
        new UndeclaredThrowableException(new HttpTimeoutException("request timed out")));
  }

  @Test
  void aReadTimeoutAmongTheCausesFencesTheKey() {
    fencedAndNotRunAgain(
        GatePolicy.defaults(),
        new UncheckedIOException(new SocketTimeoutException("Read timed out")));
  }

  @Test
  void aTimeoutWhileWaitingForAnAnswerFencesTheKey() {
    fencedAndNotRunAgain(
        GatePolicy.defaults(),
        new java.util.concurrent.ExecutionException(
            new java.util.concurrent.TimeoutException("orTimeout")));
    fencedAndNotRunAgain(
        GatePolicy.defaults(), new UncheckedIOException(new HttpTimeoutException("timed out")));
  }

  @Test
  void aConnectTimeoutOrAPlainFailureIsNotUnknown() {
    GatePolicy p = GatePolicy.defaults();
    assertThat(p.isOutcomeUnknown(new java.net.http.HttpConnectTimeoutException("connect")))
        .isFalse();
    assertThat(p.isOutcomeUnknown(new IllegalStateException(new java.io.IOException("refused"))))
        .isFalse();
  }

  /** Only a Reactor composite's errors are read ({@code CompositeOfUnknownOutcomesReviewTest}). */
  @Test
  void suppressedExceptionsOfOtherTypesAreNotRead() {
    IllegalStateException failed = new IllegalStateException("declined");
    failed.addSuppressed(new OutcomeUnknownException("a store's failure, added by the gate"));
    assertThat(GatePolicy.defaults().isOutcomeUnknown(failed)).isFalse();
  }

  @Test
  void aPredicateThatThrowsCountsAsUnknown() {
    fencedAndNotRunAgain(
        GatePolicy.builder().outcomeUnknownWhen(t -> t.getMessage().startsWith("timeout")).build(),
        new IllegalStateException((String) null));
  }

  /**
   * A predicate of the application's own replaces the default one, not the library's signal: an
   * {@link OutcomeUnknownException} (the adapters throw it too) still fences the key.
   */
  @Test
  void anOutcomeUnknownExceptionFencesUnderAPredicateOfOneOwn() {
    GatePolicy own =
        GatePolicy.builder().outcomeUnknownWhen(t -> t instanceof IllegalStateException).build();
    fencedAndNotRunAgain(own, new OutcomeUnknownException("the provider timed out"));
    fencedAndNotRunAgain(
        own, new RuntimeException("wrapped", new OutcomeUnknownException("committed")));
  }

  /** The JVM failed at some point of the action, maybe after its effect. */
  @Test
  void aVirtualMachineErrorFencesTheKey() {
    fencedAndNotRunAgain(GatePolicy.defaults(), new OutOfMemoryError("Java heap space"));
    fencedAndNotRunAgain(GatePolicy.defaults(), new StackOverflowError());
  }

  @Test
  void anotherErrorIsAFailure() {
    assertThat(GatePolicy.defaults().isOutcomeUnknown(new AssertionError("a bug"))).isFalse();
  }

  @Test
  void aLoopOfPlainFailuresIsReadOnceAndIsNotUnknown() {
    IllegalStateException a = new IllegalStateException("a");
    IllegalArgumentException b = new IllegalArgumentException("b", a);
    a.initCause(b);
    assertThat(GatePolicy.defaults().isOutcomeUnknown(a)).isFalse();
  }

  @Test
  void moreThan64ToReadCountAsUnknown() {
    Throwable chain = new IllegalStateException("the first of 65");
    for (int i = 0; i < 64; i++) {
      chain = new IllegalStateException("wrapper " + i, chain);
    }
    assertThat(GatePolicy.defaults().isOutcomeUnknown(chain)).isTrue();
  }
}
