package dev.mcpgate.client;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.client.Servers.Connected;
import dev.mcpgate.client.Servers.Kind;
import dev.mcpgate.client.Servers.Wire;
import dev.mcpgate.examples.ExampleServerForTests;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Collectors;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Our example server's {@code refund_order}, called through real transports that lose the first
 * answer of every intent after the server ran it: each intent runs once, and the caller gets that
 * run's result.
 */
class DroppedAnswersTest {
  private static final int INTENTS = 6;

  static List<Arguments> wiresAndClients() {
    List<Arguments> all = new ArrayList<>();
    for (Wire wire : Wire.values()) {
      for (Kind kind : Kind.values()) {
        all.add(Arguments.of(wire, kind));
      }
    }
    return all;
  }

  @ParameterizedTest(name = "{0} {1}")
  @MethodSource("wiresAndClients")
  void everyIntentRunsOnceThoughItsFirstAnswerIsLost(Wire wire, Kind kind) throws Exception {
    Keys keys = new Keys();
    RetryPolicy policy =
        RetryPolicy.builder()
            .maxAttempts(5)
            .initialBackoff(Duration.ofMillis(50))
            .maxBackoff(Duration.ofMillis(500))
            .deadline(Duration.ofSeconds(30))
            .build();
    try (ExampleServerForTests example = new ExampleServerForTests(wire == Wire.HTTP);
        Connected connected =
            Servers.connect(
                wire,
                kind,
                example.tools().stream().map(keys::recording).toList(),
                ExampleServerForTests.json(),
                1,
                Duration.ofMillis(1500),
                policy)) {
      ExecutorService threads = Executors.newFixedThreadPool(INTENTS);
      List<Future<CallOutcome>> calls = new ArrayList<>();
      for (int i = 0; i < INTENTS; i++) {
        Map<String, Object> args = Map.of("order_id", "ord_" + i, "amount_cents", 100 + i);
        calls.add(
            threads.submit(
                () -> connected.caller().call(IntentKey.random(), "refund_order", args)));
      }
      List<CallOutcome> outcomes = new ArrayList<>();
      for (Future<CallOutcome> call : calls) {
        outcomes.add(call.get());
      }
      threads.shutdown();

      assertThat(connected.droppedAnswers().getAsInt())
          .as("every intent's first answer was lost")
          .isGreaterThanOrEqualTo(INTENTS);
      assertThat(example.executions("refund_order"))
          .as("the handler ran once per intent")
          .isEqualTo(INTENTS);
      for (int i = 0; i < INTENTS; i++) {
        CallOutcome outcome = outcomes.get(i);
        assertThat(outcome).as("intent %d", i).isInstanceOf(CallOutcome.Completed.class);
        CallOutcome.Completed done = (CallOutcome.Completed) outcome;
        assertThat(done.replayed()).as("answered from the first run, which did happen").isTrue();
        assertThat(done.attempts()).isGreaterThanOrEqualTo(2);
        assertThat(done.result().isError()).isNotEqualTo(Boolean.TRUE);
        List<String> refunds = example.refundIds("ord_" + i);
        assertThat(refunds).as("one refund for order %d", i).hasSize(1);
        assertThat(((Map<?, ?>) done.result().structuredContent()).get("refund_id"))
            .as("the caller got the first run's result")
            .isEqualTo(refunds.get(0));
      }
      Map<String, Long> arrivalsPerKey =
          keys.of("refund_order").stream()
              .collect(Collectors.groupingBy(Keys.Arrival::key, Collectors.counting()));
      Set<String> intentKeys =
          outcomes.stream().map(o -> o.key().value()).collect(Collectors.toSet());
      assertThat(arrivalsPerKey.keySet())
          .as("the server saw one key per intent, the one the caller got back")
          .isEqualTo(intentKeys);
      assertThat(arrivalsPerKey.values()).allMatch(n -> n >= 2);
      assertThat(keys.of("refund_order"))
          .as("the key went in the argument the tool advertises")
          .allMatch(a -> a.argumentKey() != null && a.metaKey() == null);
    }
  }

  /**
   * A listing before a retry answers from what it listed, never from the cache that every intent
   * shares: while other listings (here, a thread dropping the cache without pause) empty it, a
   * gated tool that was just listed is not taken for an unlisted one, which would end the intent as
   * GaveUp after its first attempt.
   */
  @ParameterizedTest(name = "{0}")
  @EnumSource(Kind.class)
  void aListingBeforeARetryIsNotUndoneByAnotherIntentsListing(Kind kind) throws Exception {
    RetryPolicy policy =
        RetryPolicy.builder()
            .maxAttempts(5)
            .initialBackoff(Duration.ofMillis(10))
            .maxBackoff(Duration.ofMillis(50))
            .deadline(Duration.ofSeconds(30))
            .build();
    try (ExampleServerForTests example = new ExampleServerForTests(false);
        Connected connected =
            Servers.connect(
                Wire.STDIO,
                kind,
                example.tools(),
                ExampleServerForTests.json(),
                1,
                Duration.ofMillis(500),
                policy)) {
      AtomicBoolean done = new AtomicBoolean();
      Thread forgetter =
          new Thread(
              () -> {
                while (!done.get()) {
                  connected.forgetTools().run();
                }
              });
      forgetter.start();
      ExecutorService threads = Executors.newFixedThreadPool(INTENTS);
      List<Future<CallOutcome>> calls = new ArrayList<>();
      try {
        for (int i = 0; i < INTENTS; i++) {
          Map<String, Object> args = Map.of("order_id", "ord_" + i, "amount_cents", 100 + i);
          calls.add(
              threads.submit(
                  () -> connected.caller().call(IntentKey.random(), "refund_order", args)));
        }
        for (Future<CallOutcome> call : calls) {
          assertThat(call.get())
              .as("retried after its lost answer, though the cache was emptied meanwhile")
              .isInstanceOf(CallOutcome.Completed.class);
        }
      } finally {
        done.set(true);
        forgetter.join();
        threads.shutdown();
      }
      assertThat(example.executions("refund_order")).isEqualTo(INTENTS);
    }
  }

  @ParameterizedTest(name = "{0} {1}")
  @MethodSource("wiresAndClients")
  void anIntentWhoseAnswersAreAllLostIsGivenUpAsUnknownAfterOneRun(Wire wire, Kind kind)
      throws Exception {
    Keys keys = new Keys();
    RetryPolicy policy =
        RetryPolicy.builder()
            .maxAttempts(3)
            .initialBackoff(Duration.ofMillis(20))
            .maxBackoff(Duration.ofMillis(50))
            .build();
    try (ExampleServerForTests example = new ExampleServerForTests(wire == Wire.HTTP);
        Connected connected =
            Servers.connect(
                wire,
                kind,
                example.tools().stream().map(keys::recording).toList(),
                ExampleServerForTests.json(),
                Integer.MAX_VALUE,
                Duration.ofMillis(1500),
                policy)) {
      IntentKey key = IntentKey.of("refund-ord_x-1");

      CallOutcome outcome =
          connected
              .caller()
              .call(key, "refund_order", Map.of("order_id", "ord_x", "amount_cents", 700));

      assertThat(outcome).isInstanceOf(CallOutcome.GaveUp.class);
      CallOutcome.GaveUp gaveUp = (CallOutcome.GaveUp) outcome;
      assertThat(gaveUp.key()).isEqualTo(key);
      assertThat(gaveUp.attempts()).isEqualTo(3);
      assertThat(gaveUp.executed())
          .as("an answer was lost: it may have run")
          .isEqualTo(Executed.UNKNOWN);
      assertThat(gaveUp.lastFailure()).isInstanceOf(AttemptFailure.NoAnswer.class);
      assertThat(keys.of("refund_order")).hasSize(3).allMatch(a -> a.key().equals(key.value()));
      assertThat(example.executions("refund_order")).isEqualTo(1);

      CallOutcome later = retryLaterOnAHealthyLine(wire, kind, example, key);
      assertThat(later).isInstanceOf(CallOutcome.Completed.class);
      assertThat(((CallOutcome.Completed) later).replayed()).isTrue();
      assertThat(example.executions("refund_order"))
          .as("the caller's later retry with the key it was given ran nothing again")
          .isEqualTo(1);
    }
  }

  private static CallOutcome retryLaterOnAHealthyLine(
      Wire wire, Kind kind, ExampleServerForTests example, IntentKey key) throws Exception {
    try (Connected healthy =
        Servers.connect(
            wire,
            kind,
            example.tools(),
            ExampleServerForTests.json(),
            0,
            Duration.ofSeconds(10),
            RetryPolicy.defaults())) {
      return healthy
          .caller()
          .call(key, "refund_order", Map.of("order_id", "ord_x", "amount_cents", 700));
    }
  }
}
