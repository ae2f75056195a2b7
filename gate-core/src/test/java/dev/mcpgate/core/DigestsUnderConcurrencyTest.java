package dev.mcpgate.core;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.core.hash.ArgumentHasher;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/**
 * Every digest the gate computes (the argument hash, a key's plain and keyed digest, a token's
 * fingerprint, the downstream key) is a copy of one shared prototype per kind: many threads hashing
 * at once each get the value one thread alone gets, and the values are the ones stored before the
 * copies (pinned here, so a stored hash or key digest never changes).
 */
class DigestsUnderConcurrencyTest {
  private static final byte[] SECRET =
      "0123456789abcdef0123456789abcdef".getBytes(StandardCharsets.US_ASCII);
  private static final String TOKEN = "3f2c1b9e-6a4d-4e8f-9b7a-1c2d3e4f5a6b";
  private static final ClaimId ID = new ClaimId("acme", "refund_order", "order-17");

  private static List<String> digests(KeyDigest keyed) {
    return List.of(
        keyed.digest(ID.tenant(), ID.tool(), ID.key()),
        KeyDigest.sha256().digest(ID.tenant(), ID.tool(), ID.key()),
        new LeaseToken(TOKEN).fingerprint(),
        DownstreamKey.of(ID),
        ArgumentHasher.hash(
            Map.of("order_id", "o-1", "amount_cents", 1250, "idempotency_key", "k"),
            Set.of("idempotency_key")));
  }

  @Test
  void manyThreadsHashingAtOnceGetTheValuesStoredBefore() throws Exception {
    List<String> pinned =
        List.of(
            "h1:aPThp-X0yvInYm_ArAlwdPeD--eA4YOOXd_KkiydyQ8",
            "k1:eb0R-dhXzVx3Wwia9x2MBRera1Uv2ubPfeNEw0Jhp7s",
            "d7fdf1dd5c47",
            "mcpgate-79bd11f9d857cd5c775b089af71d8c0517ab6b55",
            "v1:a5066d9b4eddd2bf4e7649f4538618698b335bec7413959ea0b4cbe528aa0c13");
    KeyDigest keyed = KeyDigest.hmacSha256(SECRET); // one instance, shared by every thread
    assertThat(digests(keyed)).isEqualTo(pinned);
    ExecutorService pool = Executors.newFixedThreadPool(8);
    try {
      List<Future<Integer>> runs = new ArrayList<>();
      for (int t = 0; t < 8; t++) {
        runs.add(
            pool.submit(
                () -> {
                  int wrong = 0;
                  for (int i = 0; i < 5_000; i++) {
                    if (!digests(keyed).equals(pinned)) {
                      wrong++;
                    }
                  }
                  return wrong;
                }));
      }
      for (Future<Integer> run : runs) {
        assertThat(run.get()).isZero();
      }
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void aFingerprintIsTheStartOfTheTokensSha256() throws Exception {
    byte[] sha =
        MessageDigest.getInstance("SHA-256").digest(TOKEN.getBytes(StandardCharsets.UTF_8));
    assertThat(new LeaseToken(TOKEN).fingerprint()).isEqualTo(HexFormat.of().formatHex(sha, 0, 6));
  }
}
