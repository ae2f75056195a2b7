package dev.mcpgate.store.tck;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.core.ClaimId;
import dev.mcpgate.core.FailureReason;
import dev.mcpgate.core.GatePolicy;
import dev.mcpgate.core.GateResult;
import dev.mcpgate.core.IdempotencyGate;
import dev.mcpgate.core.LeaseToken;
import dev.mcpgate.core.RefusalReason;
import dev.mcpgate.core.ResultMapper;
import dev.mcpgate.core.ResultTooLargeException;
import dev.mcpgate.core.spi.ClaimAttempt;
import dev.mcpgate.core.spi.ClaimRecord;
import dev.mcpgate.core.spi.ClaimRequest;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Identity and limits: tenants and tools do not share keys, keys and the longest identities are
 * kept exactly, results round-trip byte for byte up to the size limit, stored failures replay.
 *
 * <p>Run as {@link IdempotencyStoreContract.IdentityAndResults}, a nested group of the contract.
 */
abstract class IdentityAndResultTests extends ContractGroup {

  /**
   * @param contract the contract instance of the current test
   */
  IdentityAndResultTests(IdempotencyStoreContract contract) {
    super(contract);
  }

  @Test
  void tenantsDoNotShareKeys() {
    ClaimId a = new ClaimId(tenant + "-a", "refund_order", "same");
    ClaimId b = new ClaimId(tenant + "-b", "refund_order", "same");

    assertThat(claim(a, "v1:a", LeaseToken.random(), LONG))
        .isInstanceOf(ClaimAttempt.Acquired.class);
    assertThat(claim(b, "v1:a", LeaseToken.random(), LONG))
        .isInstanceOf(ClaimAttempt.Acquired.class);
  }

  @Test
  void toolsDoNotShareKeys() {
    ClaimId a = new ClaimId(tenant, "refund_order", "same");
    ClaimId b = new ClaimId(tenant, "send_mail", "same");

    assertThat(claim(a, "v1:a", LeaseToken.random(), LONG))
        .isInstanceOf(ClaimAttempt.Acquired.class);
    assertThat(claim(b, "v1:b", LeaseToken.random(), LONG))
        .isInstanceOf(ClaimAttempt.Acquired.class);
  }

  @Test
  void rawKeyIsKeptExactly() {
    String key = "  Key with spaces, ünïcödé and 😀  ";
    ClaimId id = id(key);
    claim(id, "v1:a", LeaseToken.random(), LONG);

    assertThat(store.find(id)).get().extracting(r -> r.id().key()).isEqualTo(key);
    assertThat(store.find(id(key.trim()))).isEmpty();
  }

  @Test
  void theLongestValidIdentityOfFourByteCharactersIsKeptExactly() {
    String emoji = "\ud83d\ude00"; // U+1F600: 2 UTF-16 units, 4 UTF-8 bytes
    String longest = emoji.repeat(ClaimId.MAX_LENGTH);
    String longestTenant = tenant + "-" + emoji.repeat(ClaimId.MAX_LENGTH - tenant.length() - 1);
    ClaimId id = new ClaimId(longestTenant, "\ud800\udc00".repeat(ClaimId.MAX_LENGTH), longest);
    LeaseToken token = LeaseToken.random();

    assertThat(store.claim(new ClaimRequest(id, "v1:a", token, LONG, LONG)))
        .isInstanceOf(ClaimAttempt.Acquired.class);
    assertThat(store.complete(id, token, value("done"), LONG)).isTrue();

    ClaimRecord row = store.find(id).orElseThrow();
    assertThat(row.id()).isEqualTo(id);
    assertThat(row.id().key()).isEqualTo(longest);
    assertThat(store.claim(new ClaimRequest(id, "v1:a", LeaseToken.random(), LONG, LONG)))
        .isInstanceOf(ClaimAttempt.Existing.class);
    ClaimId oneShorter =
        new ClaimId(longestTenant, id.tool(), emoji.repeat(ClaimId.MAX_LENGTH - 1));
    assertThat(store.find(oneShorter)).isEmpty();
  }

  @Test
  void resultsRoundTripByteForByteUpToTheLimit() {
    int limit = maxResultBytesToTest();
    IdempotencyGate gate = gate(GatePolicy.builder().maxResultBytes(limit).build());
    Random random = new Random(42);
    for (int size : new int[] {0, 1, 255, 256, 4096, limit}) {
      byte[] bytes = new byte[size];
      random.nextBytes(bytes);
      gate.execute(call("size-" + size, Map.of()), ResultMapper.bytes(), ctx -> bytes);
      GateResult<byte[]> replay =
          gate.execute(call("size-" + size, Map.of()), ResultMapper.bytes(), ctx -> new byte[] {9});
      assertThat(replay)
          .as("size %d", size)
          .isInstanceOfSatisfying(
              GateResult.Replayed.class, r -> assertThat((byte[]) r.value()).isEqualTo(bytes));
    }
  }

  @Test
  void resultOverTheLimitIsRefusedWithoutFreeingTheKey() {
    IdempotencyGate gate = gate(GatePolicy.builder().maxResultBytes(100).build());
    AtomicInteger runs = new AtomicInteger();

    GateResult.Failed<?> tooLarge =
        GateResults.failed(
            gate.execute(
                call("big", Map.of()),
                ResultMapper.bytes(),
                ctx -> {
                  runs.incrementAndGet();
                  return new byte[101];
                }),
            FailureReason.RESULT_TOO_LARGE);
    assertThat(tooLarge.effect()).isEqualTo(GateResult.Effect.YES);
    assertThat(tooLarge.cause())
        .isInstanceOfSatisfying(
            ResultTooLargeException.class,
            e -> {
              assertThat(e.size()).isEqualTo(101);
              assertThat(e.limit()).isEqualTo(100);
              assertThat(e.getMessage()).contains("101 bytes").contains("100 bytes");
            });

    GateResult<byte[]> retry =
        gate.execute(
            call("big", Map.of()),
            ResultMapper.bytes(),
            ctx -> {
              runs.incrementAndGet();
              return new byte[1];
            });
    assertThat(runs).hasValue(1);
    assertThat(retry)
        .isInstanceOfSatisfying(
            GateResult.Refused.class,
            r -> assertThat(r.reason()).isEqualTo(RefusalReason.RESULT_NOT_STORED));
  }

  @Test
  void storedFailureIsReplayedWhenPolicySaysStore() {
    ResultMapper<String> failing =
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
    IdempotencyGate store =
        gate(GatePolicy.builder().failureMode(GatePolicy.FailureMode.STORE).build());
    IdempotencyGate release = gate(GatePolicy.defaults());
    AtomicInteger runs = new AtomicInteger();

    store.execute(
        call("s", Map.of()), failing, ctx -> "error: card declined " + runs.incrementAndGet());
    GateResult<String> replay =
        store.execute(call("s", Map.of()), failing, ctx -> "ok " + runs.incrementAndGet());
    release.execute(
        call("r", Map.of()), failing, ctx -> "error: try later " + runs.incrementAndGet());
    GateResult<String> rerun =
        release.execute(call("r", Map.of()), failing, ctx -> "ok " + runs.incrementAndGet());

    assertThat(replay)
        .isInstanceOfSatisfying(
            GateResult.Replayed.class,
            r -> {
              assertThat(r.value()).isEqualTo("error: card declined 1");
              assertThat(r.failure()).isTrue();
            });
    assertThat(((GateResult.Executed<String>) rerun).value()).isEqualTo("ok 3");
  }
}
