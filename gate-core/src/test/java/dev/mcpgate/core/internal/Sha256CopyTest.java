package dev.mcpgate.core.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.HexFormat;
import javax.crypto.Mac;
import javax.crypto.MacSpi;
import org.junit.jupiter.api.Test;

/**
 * Digests and HMACs are copies of a prototype; a provider whose digest or MAC cannot be copied gets
 * a new one, set up the same, so the hash is the same either way.
 */
class Sha256CopyTest {
  private static final byte[] SECRET =
      "0123456789abcdef0123456789abcdef".getBytes(StandardCharsets.UTF_8);
  private static final byte[] INPUT = "refund_order".getBytes(StandardCharsets.UTF_8);

  /** A digest whose provider does not copy it (not {@link Cloneable}). */
  private static final class Uncopyable extends MessageDigest {
    Uncopyable() {
      super("uncopyable");
    }

    @Override
    protected void engineUpdate(byte input) {}

    @Override
    protected void engineUpdate(byte[] input, int offset, int len) {}

    @Override
    protected byte[] engineDigest() {
      return new byte[0];
    }

    @Override
    protected void engineReset() {}
  }

  /** A MAC whose provider does not copy it (its SPI is not {@link Cloneable}). */
  private static final class UncopyableMac extends Mac {
    UncopyableMac() {
      super(
          new MacSpi() {
            @Override
            protected int engineGetMacLength() {
              return 0;
            }

            @Override
            protected void engineInit(
                java.security.Key key, java.security.spec.AlgorithmParameterSpec params) {}

            @Override
            protected void engineUpdate(byte input) {}

            @Override
            protected void engineUpdate(byte[] input, int offset, int len) {}

            @Override
            protected byte[] engineDoFinal() {
              return new byte[0];
            }

            @Override
            protected void engineReset() {}
          },
          null,
          "uncopyable");
    }
  }

  @Test
  void aDigestThatCannotBeCopiedIsReplacedByANewSha256() throws Exception {
    byte[] expected = MessageDigest.getInstance("SHA-256").digest(INPUT);

    assertThat(HexFormat.of().formatHex(Sha256.copy(new Uncopyable()).digest(INPUT)))
        .isEqualTo(HexFormat.of().formatHex(expected));
    assertThat(Sha256.digest().digest(INPUT)).isEqualTo(expected);
  }

  @Test
  void aMacThatCannotBeCopiedIsReplacedByANewOneKeyedAlike() throws Exception {
    byte[] expected = Sha256.hmac(SECRET).doFinal(INPUT);

    assertThat(Sha256.hmac(new UncopyableMac(), SECRET).doFinal(INPUT)).isEqualTo(expected);
    Mac prototype = Sha256.hmac(SECRET);
    assertThat(Sha256.hmac(prototype, SECRET).doFinal(INPUT)).isEqualTo(expected);
    assertThat(Sha256.hmac(prototype, SECRET).doFinal(INPUT))
        .as("the prototype is copied, never updated")
        .isEqualTo(expected);
  }
}
