package dev.mcpgate.core;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.core.hash.ArgumentHasher;
import dev.mcpgate.core.memory.InMemoryIdempotencyStore;
import java.lang.reflect.Method;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.lang.reflect.WildcardType;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The sealed results' {@code fold} is their one exhaustive switch: it takes one function per case
 * of the sealed type, no more and no fewer, and each value calls the function of its own case.
 */
class FoldTest {
  private static final ClaimId ID = new ClaimId("acme", "refund_order", "k-1");

  /**
   * The case each of {@code fold}'s parameters handles: the lower bound of its function's input.
   */
  private static Set<Class<?>> casesFoldTakes(Class<?> sealed) throws NoSuchMethodException {
    Method fold =
        Arrays.stream(sealed.getMethods())
            .filter(m -> m.getName().equals("fold"))
            .findFirst()
            .orElseThrow(NoSuchMethodException::new);
    return Arrays.stream(fold.getGenericParameterTypes())
        .map(
            (Type t) -> {
              Type input = ((ParameterizedType) t).getActualTypeArguments()[0];
              Type bound = ((WildcardType) input).getLowerBounds()[0];
              return (Class<?>) (bound instanceof ParameterizedType p ? p.getRawType() : bound);
            })
        .collect(Collectors.toSet());
  }

  @Test
  void foldTakesOneFunctionForEachCaseOfTheSealedType() throws NoSuchMethodException {
    for (Class<?> sealed : List.of(GateResult.class, ClaimOutcome.class)) {
      assertThat(casesFoldTakes(sealed))
          .as(sealed.getSimpleName())
          .containsExactlyInAnyOrder(sealed.getPermittedSubclasses());
      assertThat(
              Arrays.stream(sealed.getMethods())
                  .filter(m -> m.getName().equals("fold"))
                  .map(Method::getParameterCount))
          .as("%s has one fold", sealed.getSimpleName())
          .containsExactly(sealed.getPermittedSubclasses().length);
    }
  }

  @Test
  void eachResultCallsTheFunctionOfItsOwnCase() {
    ClaimOutcome.Acquired claim =
        new ClaimOutcome.Acquired(
            ID, LeaseToken.random(), 1, Instant.EPOCH, Instant.EPOCH.plusSeconds(30), "v1:a");
    List<GateResult<String>> results =
        List.of(
            new GateResult.Executed<>(ID, "ran", claim, GateResult.Completion.STORED),
            new GateResult.Replayed<>(ID, "kept", false, 1, Instant.EPOCH, Instant.EPOCH),
            new GateResult.Refused<>(ID, RefusalReason.CONFLICT, Duration.ZERO, "other args"),
            new GateResult.Failed<>(
                ID,
                FailureReason.STORE_UNAVAILABLE,
                GateResult.Effect.NO,
                true,
                "store down",
                null,
                0,
                null,
                null,
                null));

    assertThat(results)
        .extracting(
            r ->
                r.fold(
                    e -> "executed " + e.value(),
                    p -> "replayed " + p.value(),
                    f -> "refused " + f.reason(),
                    f -> "failed " + f.reason()))
        .containsExactly(
            "executed ran", "replayed kept", "refused CONFLICT", "failed STORE_UNAVAILABLE");
  }

  @Test
  void eachOutcomeCallsTheFunctionOfItsOwnCase() {
    List<ClaimOutcome> outcomes =
        List.of(
            new ClaimOutcome.Acquired(
                ID, LeaseToken.random(), 2, Instant.EPOCH, Instant.EPOCH, "v1:a"),
            new ClaimOutcome.Replayed(ID, null, 1, Instant.EPOCH, Instant.EPOCH, false),
            new ClaimOutcome.Refused(ID, RefusalReason.IN_PROGRESS, Duration.ZERO, "busy"));

    assertThat(outcomes)
        .extracting(
            o ->
                o.fold(
                    a -> "acquired " + a.attempt(),
                    p -> "replayed " + p.attempt(),
                    f -> "refused " + f.reason()))
        .containsExactly("acquired 2", "replayed 1", "refused IN_PROGRESS");
  }

  @Test
  void anAcquiredClaimCarriesTheHashItsKeyWasClaimedWith() {
    Map<String, Object> args = Map.of("order_id", "ord_9f2", "amount", 500, "note", "x");
    GatePolicy policy = GatePolicy.builder().ignoredArguments(Set.of("note")).build();
    AtomicReference<String> seen = new AtomicReference<>();
    try (IdempotencyGate gate =
        IdempotencyGate.builder(InMemoryIdempotencyStore.create()).policy(policy).build()) {
      ToolCall call = ToolCall.of("acme", "refund_order", "k-1", args);

      GateResult<String> result =
          gate.execute(
              call,
              ResultMapper.utf8(),
              ctx -> {
                seen.set(ctx.claim().argsHash());
                return "ok";
              });
      ClaimOutcome stepByStep = gate.claim(ToolCall.of("acme", "refund_order", "k-2", args));

      String hash = ArgumentHasher.hash(args, Set.of("note"));
      assertThat(seen).hasValue(hash);
      assertThat(result.argsHash()).isEqualTo(hash);
      assertThat(((ClaimOutcome.Acquired) stepByStep).argsHash()).isEqualTo(hash);
    }
  }
}
