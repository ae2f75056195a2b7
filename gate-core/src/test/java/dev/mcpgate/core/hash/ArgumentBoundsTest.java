package dev.mcpgate.core.hash;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.mcpgate.core.InvalidArgumentsException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * The bounds of what one call's arguments can make hashing do (issue 34, finding 5): nesting, the
 * number of members and elements, and the canonical bytes; each refused as {@link
 * InvalidArgumentsException} naming the bound and the path, never a value.
 */
class ArgumentBoundsTest {
  /** A small thread stack: the issue's {@code -Xss512k} overflowed at 1,000 levels. */
  private static final long SMALL_STACK = 256 * 1024;

  /** Levels nested containers, alternating objects and arrays, around a secret leaf. */
  static Object nested(int levels) {
    Object v = "secret-leaf-value";
    for (int i = 0; i < levels; i++) {
      v = i % 2 == 0 ? List.of(v) : Map.of("k", v);
    }
    return v;
  }

  /** Runs work on a fresh thread with a small stack and returns what it returned or threw. */
  static Object onSmallStack(Supplier<?> work) throws InterruptedException {
    AtomicReference<Object> outcome = new AtomicReference<>();
    Thread t =
        new Thread(
            null,
            () -> {
              try {
                outcome.set(work.get());
              } catch (Throwable e) {
                outcome.set(e);
              }
            },
            "small-stack",
            SMALL_STACK);
    t.start();
    t.join();
    return outcome.get();
  }

  @Test
  void argumentsAtTheDepthLimitHashOnASmallStack() throws Exception {
    // the arguments map is the first level
    Object atLimit = nested(CanonicalJson.MAX_DEPTH - 1);
    Object outcome = onSmallStack(() -> ArgumentHasher.hash(Map.of("x", atLimit), Set.of()));
    assertThat(outcome).asString().startsWith("v1:");
  }

  @Test
  void deepArgumentsAreRefusedOnASmallStackWithoutOverflow() throws Exception {
    Object deep = nested(100_000);
    Object outcome = onSmallStack(() -> ArgumentHasher.hash(Map.of("x", deep), Set.of()));
    assertThat(outcome).isInstanceOf(InvalidArgumentsException.class);
    assertThat(((Throwable) outcome).getMessage())
        .contains("deeper than " + CanonicalJson.MAX_DEPTH + " levels")
        .startsWith("argument at $.x.k[0].k[0]")
        .doesNotContain("secret");
  }

  @Test
  void oneLevelBeyondTheLimitIsRefused() {
    Object beyond = nested(CanonicalJson.MAX_DEPTH);
    assertThatThrownBy(() -> ArgumentHasher.hash(Map.of("x", beyond), Set.of()))
        .isInstanceOf(InvalidArgumentsException.class)
        .hasMessageContaining("deeper than 64 levels");
  }

  @Test
  void aLongPathIsShortenedInTheMessage() {
    Object v = "secret";
    for (int i = 0; i < CanonicalJson.MAX_DEPTH + 5; i++) {
      v = Map.of("a_rather_long_member_name_" + i, v);
    }
    Object deep = v;
    assertThatThrownBy(() -> CanonicalJson.toCanonicalString(deep))
        .isInstanceOf(InvalidArgumentsException.class)
        .hasMessageStartingWith("argument at $.a_rather_long_member_name_")
        .hasMessageContaining("\u2026")
        .hasMessageContaining("deeper than 64 levels")
        .satisfies(e -> assertThat(e.getMessage().length()).isLessThan(300));
  }

  @Test
  void argumentsWithMoreElementsThanTheLimitAreRefused() {
    // a map that says how many members it has, refused before any is read
    Map<String, Object> wide =
        new java.util.AbstractMap<>() {
          @Override
          public Set<Map.Entry<String, Object>> entrySet() {
            return new java.util.AbstractSet<>() {
              @Override
              public java.util.Iterator<Map.Entry<String, Object>> iterator() {
                throw new AssertionError("refused before its members are read");
              }

              @Override
              public int size() {
                return CanonicalJson.MAX_ELEMENTS + 1;
              }
            };
          }
        };
    assertThatThrownBy(() -> ArgumentHasher.hash(Map.of("w", wide), Set.of()))
        .isInstanceOf(InvalidArgumentsException.class)
        .hasMessage(
            "argument at $.w brings the arguments to more than 1000000 members and elements in"
                + " all");

    // counted over the whole value, not per container
    List<Object> half = new ArrayList<>(Arrays.asList(new Object[CanonicalJson.MAX_ELEMENTS / 2]));
    assertThat(ArgumentHasher.hash(Map.of("a", half), Set.of())).startsWith("v1:");
    assertThatThrownBy(() -> ArgumentHasher.hash(Map.of("a", half, "b", half), Set.of()))
        .isInstanceOf(InvalidArgumentsException.class)
        .hasMessageContaining("more than 1000000 members and elements");
  }

  @Test
  void argumentsLongerThanTheByteLimitAreRefused() {
    // "x":"…" with the quotes and braces: 8 bytes around the string
    int fits = (int) CanonicalJson.MAX_CANONICAL_BYTES - 8;
    String justFits = "a".repeat(fits);
    assertThat(ArgumentHasher.hash(Map.of("x", justFits), Set.of())).startsWith("v1:");
    String tooLong = "a".repeat(fits + 1);
    assertThatThrownBy(() -> ArgumentHasher.hash(Map.of("x", tooLong), Set.of()))
        .isInstanceOf(InvalidArgumentsException.class)
        .hasMessageContaining("longer than 16777216 bytes")
        .hasMessageNotContaining("aaaa");
    // long strings (written past the buffer) and short ones (through it) count alike
    List<Object> longOnes = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      longOnes.add("b".repeat(1024 * 1024));
    }
    assertThatThrownBy(() -> CanonicalJson.toCanonicalString(Map.of("m", longOnes)))
        .isInstanceOf(InvalidArgumentsException.class)
        .hasMessageContaining("longer than 16777216 bytes");
    List<Object> shortOnes = new ArrayList<>();
    String item = "c".repeat(200);
    for (int i = 0; i < 90_000; i++) {
      shortOnes.add(item);
    }
    assertThatThrownBy(() -> ArgumentHasher.hash(Map.of("m", shortOnes), Set.of()))
        .isInstanceOf(InvalidArgumentsException.class)
        .hasMessageContaining("longer than 16777216 bytes");
  }
}
