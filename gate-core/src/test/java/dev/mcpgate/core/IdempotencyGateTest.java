package dev.mcpgate.core;

import static dev.mcpgate.core.Failures.failed;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.mcpgate.core.memory.InMemoryIdempotencyStore;
import dev.mcpgate.core.spi.ClaimAttempt;
import dev.mcpgate.core.spi.ClaimRecord;
import dev.mcpgate.core.spi.ClaimRequest;
import dev.mcpgate.core.spi.ClaimState;
import dev.mcpgate.core.spi.ForwardingIdempotencyStore;
import dev.mcpgate.core.spi.IdempotencyStore;
import dev.mcpgate.core.spi.StoredResult;
import dev.mcpgate.core.spi.TransactionScope;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The gate's own rules, above any store: failure handling, waiting, codecs, validation. */
class IdempotencyGateTest {
  private final MutableClock clock = new MutableClock(Instant.parse("2030-01-01T00:00:00Z"));
  private final InMemoryIdempotencyStore memory = InMemoryIdempotencyStore.create(clock);
  private final List<GateEvent> events = new CopyOnWriteArrayList<>();

  private IdempotencyGate gate(IdempotencyStore store, GatePolicy policy) {
    return IdempotencyGate.builder(store).policy(policy).listener(events::add).build();
  }

  private static ToolCall call(String key) {
    return ToolCall.of("acme", "refund_order", key, Map.of("order_id", "ord_9f2", "amount", 500));
  }

  private List<GateEvent.Type> eventTypes() {
    return events.stream().map(GateEvent::type).toList();
  }

  // ---------------------------------------------------------------- identity validation

  @Test
  void keysTenantsAndToolsWithALoneSurrogateAreRefusedNamingTheIndex() {
    for (String bad : new String[] {"X\ud800", "X\udbff", "\udc00X", "a\ud83db"}) {
      assertThatThrownBy(() -> call(bad))
          .as(bad)
          .isInstanceOf(InvalidIdempotencyKeyException.class)
          .hasMessageContaining("lone UTF-16 surrogate")
          .hasMessageContaining("at index");
      assertThatThrownBy(() -> ToolCall.of(bad, "refund_order", "k", Map.of()))
          .as(bad)
          .hasMessageStartingWith("tenant must be valid Unicode");
      assertThatThrownBy(() -> ToolCall.of("acme", bad, "k", Map.of()))
          .as(bad)
          .hasMessageStartingWith("tool must be valid Unicode");
    }
    assertThatThrownBy(() -> call("X\ud800")).hasMessageContaining("U+D800 at index 1");
    assertThat(call("X\ud83d\ude00").id().key()).isEqualTo("X\ud83d\ude00");
    assertThat(DownstreamKey.of(call("k\ud83d\ude00").id()))
        .isNotEqualTo(DownstreamKey.of(call("k?").id()));
  }

  @Test
  void keyMustBePresentNotBlankAndWithoutControlCharacters() {
    assertThatThrownBy(() -> call(null))
        .isInstanceOfSatisfying(
            InvalidIdempotencyKeyException.class, e -> assertThat(e.isMissing()).isTrue());
    assertThatThrownBy(() -> call(""))
        .isInstanceOf(InvalidIdempotencyKeyException.class)
        .hasMessageContaining("must not be empty");
    assertThatThrownBy(() -> call("   "))
        .isInstanceOf(InvalidIdempotencyKeyException.class)
        .hasMessageContaining("blank");
    assertThatThrownBy(() -> call("ab\ncd"))
        .isInstanceOfSatisfying(
            InvalidIdempotencyKeyException.class,
            e -> {
              assertThat(e.isMissing()).isFalse();
              assertThat(e.getMessage()).contains("U+000A").contains("\"ab\\u000acd\"");
            });
  }

  @Test
  void keyMayHave255CharactersButNotMore() {
    String smiles = "😀".repeat(255);
    assertThat(call(smiles).id().key()).isEqualTo(smiles);
    assertThatThrownBy(() -> call("k".repeat(256)))
        .isInstanceOf(InvalidIdempotencyKeyException.class)
        .hasMessageContaining("at most 255")
        .hasMessageContaining("was 256");
  }

  @Test
  void keyIsKeptExactlyAsSent() {
    assertThat(call(" padded ").id().key()).isEqualTo(" padded ");
  }

  @Test
  void tenantAndToolAreValidatedLikeKeys() {
    assertThatThrownBy(() -> ToolCall.of(null, "t", "k", Map.of()))
        .isInstanceOf(InvalidIdempotencyKeyException.class)
        .hasMessageContaining("tenant");
    assertThatThrownBy(() -> ToolCall.of("a", " ", "k", Map.of()))
        .isInstanceOf(InvalidIdempotencyKeyException.class)
        .hasMessageContaining("tool");
  }

  // ---------------------------------------------------------------- gates made by withPolicy

  @Test
  void gatesMadeByWithPolicyShareOneEngineAndEachCallTakesItsGatesPolicy() {
    IdempotencyGate base = gate(memory, GatePolicy.defaults());
    IdempotencyGate small =
        base.withPolicy(GatePolicy.defaults().toBuilder().maxResultBytes(4).build());
    assertThat(small.policy().maxResultBytes()).isEqualTo(4);
    assertThat(base.policy().maxResultBytes()).isEqualTo(256 * 1024);
    assertThatThrownBy(
            () ->
                failed(
                        small.execute(call("k1"), ResultMapper.utf8(), ctx -> "12345"),
                        FailureReason.RESULT_TOO_LARGE)
                    .orThrow())
        .isInstanceOf(GateOutcomeException.class);
    assertThat(base.execute(call("k2"), ResultMapper.utf8(), ctx -> "12345"))
        .isInstanceOf(GateResult.Executed.class);
    assertThatThrownBy(
            () ->
                failed(
                        small.execute(call("k3"), ResultMapper.utf8(), ctx -> "12345"),
                        FailureReason.RESULT_TOO_LARGE)
                    .orThrow())
        .as("the base gate's call left no policy behind in the shared engine")
        .isInstanceOf(GateOutcomeException.class);
    base.close();
    assertThat(
            failed(
                small.execute(call("k4"), ResultMapper.utf8(), ctx -> "x"),
                FailureReason.GATE_CLOSED))
        .as("closing the base gate closes the engine they share")
        .isNotNull();
  }

  // ---------------------------------------------------------------- policy validation

  @Test
  void policyRefusesBadValuesNamingThem() {
    assertThatThrownBy(
            () ->
                GatePolicy.builder()
                    .lease(Duration.ofHours(2))
                    .retention(Duration.ofHours(1))
                    .build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("lease (PT2H)")
        .hasMessageContaining("retention (PT1H)");
    assertThatThrownBy(() -> GatePolicy.builder().lease(Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("lease");
    assertThatThrownBy(() -> GatePolicy.builder().inFlightWait(Duration.ofSeconds(-1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("inFlightWait");
    assertThatThrownBy(() -> GatePolicy.builder().maxResultBytes(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("maxResultBytes");
    assertThatThrownBy(() -> GatePolicy.builder().failureMode(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessageContaining("failureMode");
  }

  @Test
  void policyDefaultsAreDocumented() {
    GatePolicy p = GatePolicy.defaults();
    assertThat(p.retention()).isEqualTo(Duration.ofHours(24));
    assertThat(p.lease()).isEqualTo(Duration.ofSeconds(5));
    assertThat(p.leaseRenewal()).isEqualTo(Duration.ofMillis(1250));
    assertThat(p.inFlightWait()).isEqualTo(Duration.ofSeconds(5));
    assertThat(p.failureMode()).isEqualTo(GatePolicy.FailureMode.RELEASE);
    assertThat(p.maxResultBytes()).isEqualTo(256 * 1024);
    assertThat(p.toBuilder().build()).isEqualTo(p);
  }

  // ---------------------------------------------------------------- fail closed

  @Test
  void unreachableStoreFailsClosedAndTheActionDoesNotRun() {
    IdempotencyStore down =
        new ForwardingStore(memory) {
          @Override
          public ClaimAttempt claim(ClaimRequest request) {
            throw new IllegalStateException("connection refused");
          }
        };
    AtomicInteger runs = new AtomicInteger();

    assertThatThrownBy(
            () ->
                failed(
                        gate(down, GatePolicy.defaults())
                            .execute(
                                call("k"),
                                ResultMapper.utf8(),
                                ctx -> "x" + runs.incrementAndGet()),
                        FailureReason.STORE_UNAVAILABLE)
                    .orThrow())
        .isInstanceOf(GateOutcomeException.class)
        .hasMessageContaining("did not run")
        .hasMessageContaining("safe to retry")
        .hasRootCauseMessage("connection refused");
    assertThat(runs).hasValue(0);
  }

  @Test
  void aStoreThatReportsAClaimItsTokenDoesNotHoldIsNotBelieved() {
    IdempotencyStore confused =
        new ForwardingStore(memory) {
          @Override
          public ClaimAttempt claim(ClaimRequest request) {
            ClaimRecord row = memory.claim(request).record();
            ClaimRecord other =
                new ClaimRecord(
                    row.id(),
                    row.argsHash(),
                    row.state(),
                    LeaseToken.random(),
                    row.attempt(),
                    row.createdAt(),
                    row.leaseExpiresAt(),
                    row.expiresAt(),
                    row.completedAt(),
                    row.result());
            return new ClaimAttempt.Acquired(other, row.createdAt());
          }
        };
    AtomicInteger runs = new AtomicInteger();

    assertThatThrownBy(
            () ->
                gate(confused, GatePolicy.defaults())
                    .execute(call("k"), ResultMapper.utf8(), ctx -> "x" + runs.incrementAndGet()))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("does not hold");
    assertThat(runs).hasValue(0);
  }

  @Test
  void badArgumentsAreRefusedBeforeAnythingIsClaimed() {
    AtomicInteger runs = new AtomicInteger();
    ToolCall nan = ToolCall.of("acme", "t", "k", Map.of("amount", Double.NaN));

    assertThatThrownBy(
            () ->
                failed(
                        gate(memory, GatePolicy.defaults())
                            .execute(nan, ResultMapper.utf8(), ctx -> "x" + runs.incrementAndGet()),
                        FailureReason.ARGUMENTS_INVALID)
                    .orThrow())
        .hasCauseInstanceOf(InvalidArgumentsException.class)
        .hasMessageContaining("$.amount");
    assertThat(runs).hasValue(0);
    assertThat(memory.find(nan.id())).isEmpty();
  }

  @Test
  void failedCompletionStillReturnsTheResultAndDoesNotFreeTheKey() {
    IdempotencyStore flaky =
        new ForwardingStore(memory) {
          @Override
          public boolean complete(ClaimId id, LeaseToken t, StoredResult r, Duration retention) {
            throw new IllegalStateException("disk full");
          }
        };
    GateResult<String> result =
        gate(flaky, GatePolicy.defaults()).execute(call("k"), ResultMapper.utf8(), ctx -> "paid");

    assertThat(result)
        .isInstanceOfSatisfying(
            GateResult.Executed.class,
            e -> {
              assertThat(e.value()).isEqualTo("paid");
              assertThat(e.completion()).isEqualTo(GateResult.Completion.STORE_FAILED);
            });
    assertThat(eventTypes()).contains(GateEvent.Type.STORE_FAILED);
    GateEvent failed =
        events.stream()
            .filter(e -> e.type() == GateEvent.Type.STORE_FAILED)
            .findFirst()
            .orElseThrow();
    assertThat(failed.error()).hasMessage("disk full");
    assertThat(memory.find(call("k").id()))
        .get()
        .extracting(ClaimRecord::state)
        .isEqualTo(ClaimState.UNKNOWN);
  }

  @Test
  void aFailedCommitWhoseClaimCannotBeReadBackIsAnUnknownOutcomeNotAFreedKey() {
    IdempotencyStore blind =
        new ForwardingStore(memory) {
          @Override
          public Optional<ClaimRecord> find(ClaimId id) {
            throw new IllegalStateException("store unreachable");
          }
        };
    TransactionScope<Object> commitFails =
        new TransactionScope<>() {
          public Object begin() {
            return this;
          }

          public boolean complete(Object r, ClaimId id, LeaseToken t, StoredResult s, Duration d) {
            return memory.complete(id, t, s, d);
          }

          public boolean release(Object r, ClaimId id, LeaseToken t) {
            return memory.release(id, t);
          }

          public void commit(Object r) {
            throw new IllegalStateException("connection lost at COMMIT");
          }

          public void rollback(Object r) {}

          public void close(Object r) {}
        };

    assertThatThrownBy(
            () ->
                failed(
                        gate(blind, GatePolicy.defaults())
                            .execute(
                                call("k"), ResultMapper.utf8(), commitFails, (r, ctx) -> "paid"),
                        FailureReason.COMMIT_UNKNOWN)
                    .orThrow())
        .isInstanceOf(GateOutcomeException.class)
        .hasMessageContaining("is not known")
        .hasRootCauseMessage("connection lost at COMMIT");
    assertThat(memory.find(call("k").id())).as("not freed").isPresent();
    assertThat(eventTypes()).contains(GateEvent.Type.STORE_FAILED);
  }

  // ---------------------------------------------------------------- action failures

  @Test
  void checkedExceptionIsWrappedAfterRelease() {
    IdempotencyGate gate = gate(memory, GatePolicy.defaults());
    assertThatThrownBy(
            () ->
                gate.execute(
                        call("k"),
                        ResultMapper.utf8(),
                        ctx -> {
                          throw new java.io.IOException("smtp down");
                        })
                    .orThrow())
        .isInstanceOf(ActionFailedException.class)
        .hasRootCauseMessage("smtp down");
    assertThat(memory.find(call("k").id())).isEmpty();
    assertThat(eventTypes()).containsExactly(GateEvent.Type.ACQUIRED, GateEvent.Type.RELEASED);
  }

  @Test
  void configuredExceptionsMeanOutcomeUnknown() {
    IdempotencyGate gate =
        gate(
            memory,
            GatePolicy.builder()
                .outcomeUnknownWhen(t -> t instanceof java.net.SocketTimeoutException)
                .build());
    assertThatThrownBy(
            () ->
                gate.execute(
                        call("k"),
                        ResultMapper.utf8(),
                        ctx -> {
                          throw new java.net.SocketTimeoutException("read timed out");
                        })
                    .orThrow())
        .isInstanceOf(ActionFailedException.class);
    assertThat(memory.find(call("k").id()))
        .get()
        .extracting(ClaimRecord::state)
        .isEqualTo(ClaimState.UNKNOWN);
  }

  @Test
  void failureResultReleasesByDefault() {
    ResultMapper<String> mapper =
        new ResultMapper<>() {
          public byte[] toBytes(String v) {
            return v.getBytes();
          }

          public String fromBytes(byte[] b) {
            return new String(b);
          }

          public boolean isFailure(String v) {
            return v.startsWith("error");
          }
        };
    GateResult<String> r =
        gate(memory, GatePolicy.defaults()).execute(call("k"), mapper, ctx -> "error: declined");

    assertThat(((GateResult.Executed<String>) r).completion())
        .isEqualTo(GateResult.Completion.RELEASED);
    assertThat(memory.find(call("k").id())).isEmpty();
  }

  // ---------------------------------------------------------------- reconciling unknown outcomes

  private GateResult<String> unknownThenRetry(Reconciler reconciler, AtomicInteger runs) {
    IdempotencyGate gate = gate(memory, GatePolicy.builder().reconciler(reconciler).build());
    assertThatThrownBy(
            () ->
                gate.execute(
                        call("k"),
                        ResultMapper.utf8(),
                        ctx -> {
                          runs.incrementAndGet();
                          throw new OutcomeUnknownException("provider timed out");
                        })
                    .orThrow())
        .isInstanceOf(OutcomeUnknownException.class);
    return gate.execute(call("k"), ResultMapper.utf8(), ctx -> "ran-" + runs.incrementAndGet());
  }

  @Test
  void reconcilerThatFindsTheEffectStoresAndReplaysItsResult() {
    AtomicInteger runs = new AtomicInteger();
    String[] askedWith = new String[1];
    GateResult<String> retry =
        unknownThenRetry(
            (id, downstreamKey) -> {
              askedWith[0] = downstreamKey;
              return Reconciler.Verdict.happened("refund re_1 found downstream".getBytes());
            },
            runs);

    assertThat(runs).hasValue(1);
    assertThat(askedWith[0]).isEqualTo(DownstreamKey.of(call("k").id()));
    assertThat(retry)
        .isInstanceOfSatisfying(
            GateResult.Replayed.class,
            r -> assertThat(r.value()).isEqualTo("refund re_1 found downstream"));
    assertThat(memory.find(call("k").id()))
        .get()
        .extracting(ClaimRecord::state)
        .isEqualTo(ClaimState.COMPLETED);
  }

  @Test
  void reconcilerThatFindsNoEffectLetsTheRetryRun() {
    AtomicInteger runs = new AtomicInteger();
    GateResult<String> retry =
        unknownThenRetry((id, key) -> Reconciler.Verdict.notHappened(), runs);

    assertThat(runs).hasValue(2);
    assertThat(((GateResult.Executed<String>) retry).value()).isEqualTo("ran-2");
  }

  @Test
  void reconcilerThatCannotTellOrFailsKeepsTheFence() {
    AtomicInteger runs = new AtomicInteger();
    GateResult<String> unknown =
        unknownThenRetry((id, key) -> Reconciler.Verdict.stillUnknown(), runs);
    memory.find(call("k").id()).ifPresent(r -> memory.release(r.id(), r.token()));
    AtomicInteger runs2 = new AtomicInteger();
    GateResult<String> failing =
        unknownThenRetry(
            (id, key) -> {
              throw new java.io.IOException("provider down");
            },
            runs2);

    assertThat(runs).hasValue(1);
    assertThat(runs2).hasValue(1);
    for (GateResult<String> r : List.of(unknown, failing)) {
      assertThat(r)
          .isInstanceOfSatisfying(
              GateResult.Refused.class,
              refused -> assertThat(refused.reason()).isEqualTo(RefusalReason.OUTCOME_UNKNOWN));
    }
  }

  // ---------------------------------------------------------------- waiting on in-flight calls

  @Test
  void inFlightCallWaitsAndReplaysTheFirstResult() throws Exception {
    IdempotencyGate gate =
        gate(memory, GatePolicy.builder().inFlightWait(Duration.ofSeconds(30)).build());
    CountDownLatch running = new CountDownLatch(1);
    CountDownLatch finish = new CountDownLatch(1);
    CompletableFuture<GateResult<String>> first =
        CompletableFuture.supplyAsync(
            () ->
                gate.execute(
                    call("k"),
                    ResultMapper.utf8(),
                    ctx -> {
                      running.countDown();
                      finish.await();
                      return "refund-1";
                    }));
    running.await();
    CompletableFuture<GateResult<String>> second =
        CompletableFuture.supplyAsync(
            () -> gate.execute(call("k"), ResultMapper.utf8(), ctx -> "refund-2"));
    Thread.sleep(50);
    finish.countDown();

    assertThat(second.get(10, TimeUnit.SECONDS))
        .isInstanceOfSatisfying(
            GateResult.Replayed.class, r -> assertThat(r.value()).isEqualTo("refund-1"));
    assertThat(first.get(10, TimeUnit.SECONDS)).isInstanceOf(GateResult.Executed.class);
  }

  @Test
  void inFlightCallIsRefusedWithRetryAfterWhenTheWaitRunsOut() throws Exception {
    IdempotencyGate gate =
        gate(memory, GatePolicy.builder().inFlightWait(Duration.ofMillis(30)).build());
    ClaimOutcome.Acquired holder = (ClaimOutcome.Acquired) gate.claim(call("k"));
    AtomicBoolean ran = new AtomicBoolean();

    GateResult<String> r =
        gate.execute(
            call("k"),
            ResultMapper.utf8(),
            ctx -> {
              ran.set(true);
              return "x";
            });

    assertThat(ran).isFalse();
    assertThat(r)
        .isInstanceOfSatisfying(
            GateResult.Refused.class,
            refused -> {
              assertThat(refused.reason()).isEqualTo(RefusalReason.IN_PROGRESS);
              assertThat(refused.retryAfter()).isEqualTo(Duration.ofSeconds(5));
              assertThat(refused.message()).contains("same key");
            });
    assertThat(eventTypes()).containsExactly(GateEvent.Type.ACQUIRED, GateEvent.Type.REFUSED);
    assertThat(gate.release(holder)).isTrue();
  }

  // ---------------------------------------------------------------- codec, listeners, context

  @Test
  void codecEncodesWhatIsStoredAndDecodesReplays() {
    ResultCodec xor =
        new ResultCodec() {
          public byte[] encode(ClaimId id, byte[] plain) {
            return flip(plain);
          }

          public byte[] decode(ClaimId id, byte[] stored) {
            return flip(stored);
          }

          private byte[] flip(byte[] b) {
            byte[] out = b.clone();
            for (int i = 0; i < out.length; i++) out[i] ^= 0x5a;
            return out;
          }
        };
    IdempotencyGate gate = IdempotencyGate.builder(memory).codec(xor).build();
    gate.execute(call("k"), ResultMapper.utf8(), ctx -> "secret");

    byte[] stored = memory.find(call("k").id()).orElseThrow().result().body();
    assertThat(new String(stored)).isNotEqualTo("secret");
    assertThat(gate.execute(call("k"), ResultMapper.utf8(), ctx -> "other"))
        .isInstanceOfSatisfying(
            GateResult.Replayed.class, r -> assertThat(r.value()).isEqualTo("secret"));
  }

  @Test
  void failingListenerDoesNotChangeTheOutcome() {
    IdempotencyGate gate =
        IdempotencyGate.builder(memory)
            .listener(
                e -> {
                  throw new IllegalStateException("metrics down");
                })
            .listener(events::add)
            .build();
    GateResult<String> r = gate.execute(call("k"), ResultMapper.utf8(), ctx -> "ok");
    assertThat(r).isInstanceOf(GateResult.Executed.class);
    assertThat(eventTypes()).containsExactly(GateEvent.Type.ACQUIRED, GateEvent.Type.COMPLETED);
  }

  @Test
  void eventsFollowEachAttemptByATokenFingerprintAndAReplaySaysWhichAttemptProducedIt() {
    IdempotencyGate gate = gate(memory, GatePolicy.builder().lease(Duration.ofSeconds(10)).build());
    ClaimOutcome.Acquired first = (ClaimOutcome.Acquired) gate.claim(call("k"));
    clock.advance(Duration.ofSeconds(11));
    gate.execute(call("k"), ResultMapper.utf8(), ctx -> "second attempt's result");
    GateResult<String> replay = gate.execute(call("k"), ResultMapper.utf8(), ctx -> "never");

    assertThat(replay)
        .isInstanceOfSatisfying(
            GateResult.Replayed.class,
            r -> {
              assertThat(r.attempt()).isEqualTo(2);
              assertThat(r.completedAt()).isNotNull();
              assertThat(r.firstExecutedAt()).isAfter(first.claimedAt());
            });
    List<GateEvent> attempts =
        events.stream().filter(e -> e.type() != GateEvent.Type.REPLAYED).toList();
    List<String> fingerprints = attempts.stream().map(GateEvent::tokenFingerprint).toList();
    String firstPrint = first.token().fingerprint();
    assertThat(fingerprints.get(0)).isEqualTo(firstPrint).matches("[0-9a-f]{12}");
    assertThat(fingerprints.subList(1, fingerprints.size()))
        .as("the second attempt's events")
        .doesNotContain(firstPrint)
        .containsOnly(fingerprints.get(1));
    assertThat(fingerprints).doesNotContain(first.token().value());
    assertThat(events.get(events.size() - 1))
        .as("the replay names the attempt whose result it returns, not that attempt's token")
        .satisfies(
            e -> {
              assertThat(e.type()).isEqualTo(GateEvent.Type.REPLAYED);
              assertThat(e.attempt()).isEqualTo(2);
              assertThat(e.tokenFingerprint()).isNull();
            });
  }

  @Test
  void heartbeatExtendsTheLeaseUntilTakenOver() {
    IdempotencyGate gate = gate(memory, GatePolicy.builder().lease(Duration.ofSeconds(10)).build());
    ClaimOutcome.Acquired first = (ClaimOutcome.Acquired) gate.claim(call("k"));
    ClaimContext ctx = gate.engine().context(first);

    assertThat(ctx.extendLease(Duration.ofSeconds(20))).isTrue();
    clock.advance(Duration.ofSeconds(15));
    assertThat(gate.claim(call("k")))
        .isInstanceOfSatisfying(
            ClaimOutcome.Refused.class,
            r -> assertThat(r.reason()).isEqualTo(RefusalReason.IN_PROGRESS));
    clock.advance(Duration.ofSeconds(6));
    assertThat(gate.claim(call("k"))).isInstanceOf(ClaimOutcome.Acquired.class);
    assertThat(ctx.extendLease(Duration.ofSeconds(20))).isFalse();
  }

  @Test
  void downstreamKeyIsStableAndScopedToTenantToolAndKey() {
    ClaimId id = new ClaimId("acme", "refund_order", "k1");
    assertThat(DownstreamKey.of(id))
        .isEqualTo(DownstreamKey.of(new ClaimId("acme", "refund_order", "k1")))
        .matches("mcpgate-[0-9a-f]{40}");
    assertThat(DownstreamKey.of(id))
        .isNotEqualTo(DownstreamKey.of(new ClaimId("other", "refund_order", "k1")))
        .isNotEqualTo(DownstreamKey.of(new ClaimId("acme", "send_mail", "k1")))
        .isNotEqualTo(DownstreamKey.of(new ClaimId("acme", "refund_order", "k2")));
    assertThat(DownstreamKey.of(new ClaimId("a", "bc", "k")))
        .isNotEqualTo(DownstreamKey.of(new ClaimId("ab", "c", "k")));
  }

  /** Passes every call to another store; tests override one method to inject a fault. */
  static class ForwardingStore extends ForwardingIdempotencyStore {
    ForwardingStore(IdempotencyStore delegate) {
      super(delegate);
    }
  }
}
