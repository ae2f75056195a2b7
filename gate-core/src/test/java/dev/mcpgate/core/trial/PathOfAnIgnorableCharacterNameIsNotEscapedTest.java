package dev.mcpgate.core.trial;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.mcpgate.core.InvalidArgumentsException;
import dev.mcpgate.core.hash.CanonicalJson;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * An argument that cannot be hashed is refused naming its path, which the model reads, the audit
 * records and the operator's log shows. CanonicalJson quotes a member name with Checks.quote
 * (control characters escaped) unless the name looks like a Java identifier.
 *
 * <p>Expected: no control character of a caller's argument name reaches the message raw, as for any
 * name that is quoted. What happens: Character.isJavaIdentifierPart is true for the
 * "identifier-ignorable" control characters (U+0000 to U+0008, U+000E to U+001B, U+007F to U+009F),
 * so a name such as {@code a<ESC>[2Jb} or {@code a<NUL>b} counts as plain and is written raw: an
 * anonymous caller puts an ANSI escape sequence (clear the screen, recolour) or a NUL into the
 * operator's log line and the audit reason.
 */
class PathOfAnIgnorableCharacterNameIsNotEscapedTest {

  private static Object tooDeep() {
    Object deep = "v";
    for (int i = 0; i < 70; i++) {
      deep = List.of(deep);
    }
    return deep;
  }

  @Test
  void aNameWithAnEscapeOrANulIsQuotedEscapedInThePath() {
    for (String name : List.of("a\u001bc", "a\u0000b", "a\u009b2J")) {
      assertThatThrownBy(() -> CanonicalJson.toCanonicalString(Map.of(name, tooDeep())))
          .isInstanceOf(InvalidArgumentsException.class)
          .satisfies(
              e ->
                  assertThat(e.getMessage().chars().noneMatch(Character::isISOControl))
                      .as("raw control character in: %s", e.getMessage().replace('\u001b', '^'))
                      .isTrue());
    }
  }
}
