package dev.mcpgate.core.trial;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.mcpgate.core.ClaimId;
import dev.mcpgate.core.InvalidIdempotencyKeyException;
import org.junit.jupiter.api.Test;

/**
 * docs/security.md, Keys: an invalid key is "refused with a message that quotes them escaped and
 * cut to 80 characters, so that a client can find the key it sent"; the adapter sends the message
 * to the model.
 *
 * <p>Expected: one count of characters in one message, and a quote cut on a character boundary.
 * What happens for a key of 301 characters outside the BMP (an emoji key a model may well send):
 * the rule says "was 301" (code points) while the quote says "(601 chars)" (UTF-16 units), and the
 * quote is cut after 80 UTF-16 units, inside a surrogate pair, so the message carries a lone
 * surrogate, which the MCP transport's JSON writes as '?'. A lone surrogate in the key itself is
 * quoted unescaped as well, although the quote escapes control characters.
 */
class QuotedKeyCutInsideACharacterTest {

  private static boolean hasLoneSurrogate(String s) {
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (Character.isHighSurrogate(c)
          && i + 1 < s.length()
          && Character.isLowSurrogate(s.charAt(i + 1))) {
        i++;
      } else if (Character.isSurrogate(c)) {
        return true;
      }
    }
    return false;
  }

  @Test
  void aLongKeyIsQuotedCutOnACharacterAndCountedOnce() {
    String key = "a" + "\ud83d\ude00".repeat(300);

    assertThatThrownBy(() -> ClaimId.validate(key, "idempotency key"))
        .isInstanceOf(InvalidIdempotencyKeyException.class)
        .satisfies(
            e -> {
              String message = e.getMessage();
              assertThat(message).contains("was 301");
              assertThat(message).as("one count for one key").doesNotContain("601");
              assertThat(hasLoneSurrogate(message))
                  .as("cut inside a character: %s", message)
                  .isFalse();
            });
  }

  @Test
  void aLoneSurrogateInAKeyIsQuotedEscaped() {
    assertThatThrownBy(() -> ClaimId.validate("k\ud800", "idempotency key"))
        .isInstanceOf(InvalidIdempotencyKeyException.class)
        .satisfies(e -> assertThat(hasLoneSurrogate(e.getMessage())).isFalse());
  }
}
