package dev.mcpgate.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** Key digests: stable per (tenant, tool, key), apart across each part, keyed by a secret. */
class KeyDigestTest {
  private static final byte[] SECRET =
      "0123456789abcdef0123456789abcdef".getBytes(StandardCharsets.US_ASCII);

  @Test
  void theSameRawKeyGivesTheSameDigestAndAnyOtherPartAnother() {
    KeyDigest d = KeyDigest.hmacSha256(SECRET);
    String digest = d.digest("acme", "send_reset", "alice@example.com");

    assertThat(digest).startsWith("h1:").hasSize(46).doesNotContain("alice");
    assertThat(KeyDigest.looksDigested(digest)).isTrue();
    assertThat(d.digest("acme", "send_reset", "alice@example.com")).isEqualTo(digest);
    assertThat(d.digest("globex", "send_reset", "alice@example.com")).isNotEqualTo(digest);
    assertThat(d.digest("acme", "send_mail", "alice@example.com")).isNotEqualTo(digest);
    assertThat(d.digest("acme", "send_reset", "bob@example.com")).isNotEqualTo(digest);
    assertThat(d.digest("ac", "meSend", "x")).isNotEqualTo(d.digest("acme", "Send", "x"));
  }

  @Test
  void theSecretKeysTheDigestAndThePlainOneIsMarkedAsSuch() {
    String keyed = KeyDigest.hmacSha256(SECRET).digest("acme", "t", "k");
    byte[] other = SECRET.clone();
    other[0] ^= 1;
    assertThat(KeyDigest.hmacSha256(other).digest("acme", "t", "k")).isNotEqualTo(keyed);
    String plain = KeyDigest.sha256().digest("acme", "t", "k");
    assertThat(plain).startsWith("k1:").hasSize(46).isNotEqualTo(keyed);
    assertThat(KeyDigest.sha256().isKeyed()).isFalse();
  }

  @Test
  void anOperatorFindsACallByItsRawKey() {
    KeyDigest d = KeyDigest.sha256();
    ClaimId raw = new ClaimId("acme", "send_reset", "alice@example.com");
    assertThat(d.digested(raw))
        .isEqualTo(
            new ClaimId("acme", "send_reset", d.digest("acme", "send_reset", "alice@example.com")));
  }

  @Test
  void aShortSecretIsRefused() {
    assertThatThrownBy(() -> KeyDigest.hmacSha256(new byte[8]))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("8");
  }
}
