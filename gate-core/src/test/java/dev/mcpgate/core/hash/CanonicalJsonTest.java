package dev.mcpgate.core.hash;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.mcpgate.core.InvalidArgumentsException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** Vectors for the canonical form and the argument hash. */
class CanonicalJsonTest {
  private static final ObjectMapper PLAIN = new ObjectMapper();
  private static final ObjectMapper EXACT =
      new ObjectMapper().enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS);

  private static String canon(Object v) {
    return CanonicalJson.toCanonicalString(v);
  }

  private static Map<String, Object> parse(ObjectMapper mapper, String json) throws Exception {
    @SuppressWarnings("unchecked")
    Map<String, Object> map = mapper.readValue(json, Map.class);
    return map;
  }

  private static String hash(Map<String, ?> args) {
    return ArgumentHasher.hash(args, Set.of());
  }

  @Test
  void membersAreSortedByUtf16CodeUnits() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("b", 1);
    m.put("a", 2);
    m.put("\uD83D\uDE00", 3); // U+1F600: surrogates D83D.. sort before U+FB01
    m.put("\uFB01", 4);
    m.put("A", 5);
    assertThat(canon(m)).isEqualTo("{\"A\":5,\"a\":2,\"b\":1,\"\uD83D\uDE00\":3,\"\uFB01\":4}");
  }

  @Test
  void memberOrderDoesNotChangeTheHash() throws Exception {
    assertThat(hash(parse(PLAIN, "{\"a\":1,\"b\":{\"x\":[1,2],\"y\":null}}")))
        .isEqualTo(hash(parse(PLAIN, "{\"b\":{\"y\":null,\"x\":[1,2]},\"a\":1}")));
  }

  @Test
  void equalNumbersHashEqualWhateverTheirSpelling() throws Exception {
    String one = hash(parse(PLAIN, "{\"n\":1}"));
    for (String spelling : List.of("1.0", "1e0", "10E-1", "1.000", "0.1e1")) {
      assertThat(hash(parse(PLAIN, "{\"n\":" + spelling + "}"))).as(spelling).isEqualTo(one);
      assertThat(hash(parse(EXACT, "{\"n\":" + spelling + "}"))).as(spelling).isEqualTo(one);
    }
    assertThat(hash(Map.of("n", BigDecimal.ONE))).isEqualTo(one);
    assertThat(hash(Map.of("n", BigInteger.ONE))).isEqualTo(one);
    assertThat(hash(Map.of("n", 1L))).isEqualTo(one);
    assertThat(hash(Map.of("n", 1.0f))).isEqualTo(one);
  }

  @Test
  void largeIntegersAreNeverRoundedThroughDouble() throws Exception {
    Map<String, Object> a = parse(PLAIN, "{\"n\":9007199254740993}");
    Map<String, Object> b = parse(PLAIN, "{\"n\":9007199254740992}");
    assertThat(hash(a)).isNotEqualTo(hash(b));
    assertThat(canon(a)).isEqualTo("{\"n\":9007199254740993}");
    assertThat(canon(Map.of("n", new BigInteger("123456789012345678901234567890"))))
        .isEqualTo("{\"n\":1.2345678901234567890123456789E+29}");
    assertThat(hash(Map.of("n", new BigInteger("123456789012345678901234567891"))))
        .isNotEqualTo(hash(Map.of("n", new BigInteger("123456789012345678901234567890"))));
  }

  @Test
  void numbersHaveOneCanonicalSpelling() {
    assertThat(canon(List.of(0, -0.0, 0.0, 10, 100.0, 0.5, -12.5, 1e21, 1e-7, 0.1, 123.456)))
        .isEqualTo("[0,0,0,1E+1,1E+2,0.5,-12.5,1E+21,1E-7,0.1,123.456]");
    assertThat(canon(List.of(new BigDecimal("0.100"), new BigDecimal("1E+400"))))
        .isEqualTo("[0.1,1E+400]");
  }

  @Test
  void doublesStandForTheirShortestDecimal() throws Exception {
    // 0.1 parsed as a double and as an exact decimal give the same canonical form
    assertThat(canon(parse(PLAIN, "{\"p\":0.1}"))).isEqualTo(canon(parse(EXACT, "{\"p\":0.1}")));
    assertThat(canon(parse(PLAIN, "{\"p\":1e300}"))).isEqualTo("{\"p\":1E+300}");
    assertThat(canon(2.0e-3)).isEqualTo("0.002");
  }

  @Test
  void everyPathForDoublesAgreesWithTheExhaustiveShortestDecimal() {
    java.util.Random random = new java.util.Random(1);
    for (int i = 0; i < 20_000; i++) {
      double d =
          switch (i % 4) {
            case 0 -> random.nextInt(10_000_000) / 100.0;
            case 1 -> random.nextDouble() * Math.pow(10, random.nextInt(40) - 20);
            case 2 -> Double.longBitsToDouble(random.nextLong());
            default ->
                Double.parseDouble(
                    random.nextInt(1000)
                        + "."
                        + random.nextInt(1000)
                        + "e"
                        + (random.nextInt(60) - 30));
          };
      if (Double.isNaN(d) || Double.isInfinite(d)) {
        continue;
      }
      BigDecimal exact = new BigDecimal(d);
      BigDecimal shortest = exact;
      for (int digits = 1; digits <= 17; digits++) {
        BigDecimal c =
            exact.round(new java.math.MathContext(digits, java.math.RoundingMode.HALF_EVEN));
        if (c.doubleValue() == d) {
          shortest = c;
          break;
        }
      }
      String expected = shortest.signum() == 0 ? "0" : shortest.stripTrailingZeros().toString();
      assertThat(canon(d)).as("%s (bits %x)", d, Double.doubleToLongBits(d)).isEqualTo(expected);
    }
  }

  @Test
  void arraysKeepTheirOrder() {
    assertThat(hash(Map.of("a", List.of(1, 2)))).isNotEqualTo(hash(Map.of("a", List.of(2, 1))));
  }

  @Test
  void nullIsDistinctFromAbsent() {
    Map<String, Object> withNull = new HashMap<>();
    withNull.put("note", null);
    assertThat(canon(withNull)).isEqualTo("{\"note\":null}");
    assertThat(hash(withNull)).isNotEqualTo(hash(Map.of()));
  }

  @Test
  void stringsAreEscapedAsRfc8785() {
    assertThat(canon("\"\\/\b\f\n\r\t\u0001\u001f\u007f é 😀"))
        .isEqualTo("\"\\\"\\\\/\\b\\f\\n\\r\\t\\u0001\\u001f\u007f é 😀\"");
    // lone surrogates stay distinct instead of collapsing into a replacement character
    assertThat(canon("\uD800")).isEqualTo("\"\\ud800\"");
    assertThat(hash(Map.of("s", "\uD800"))).isNotEqualTo(hash(Map.of("s", "\uDC00")));
  }

  @Test
  void nonBmpCharactersAreWrittenAsUtf8() {
    String s = "\uD83D\uDE00";
    assertThat(CanonicalJson.toCanonicalString(s).getBytes(java.nio.charset.StandardCharsets.UTF_8))
        .containsExactly('"', 0xF0 - 256, 0x9F - 256, 0x98 - 256, 0x80 - 256, '"');
  }

  @Test
  void nanAndInfinitiesAreRejectedNamingThePath() {
    Map<String, Object> args =
        Map.of("items", List.of(Map.of("price", 1), Map.of("price", Double.NaN)));
    assertThatThrownBy(() -> hash(args))
        .isInstanceOf(InvalidArgumentsException.class)
        .hasMessageContaining("$.items[1].price")
        .hasMessageContaining("NaN");
    assertThatThrownBy(() -> hash(Map.of("x", Double.POSITIVE_INFINITY)))
        .isInstanceOf(InvalidArgumentsException.class)
        .hasMessageContaining("Infinity");
    assertThatThrownBy(() -> hash(Map.of("x", Float.NEGATIVE_INFINITY)))
        .isInstanceOf(InvalidArgumentsException.class)
        .hasMessageContaining("$.x");
  }

  @Test
  void unsupportedTypesAreRejectedNamingTheType() {
    assertThatThrownBy(() -> hash(Map.of("when", new java.util.Date())))
        .isInstanceOf(InvalidArgumentsException.class)
        .hasMessageContaining("$.when")
        .hasMessageContaining("java.util.Date");
    assertThatThrownBy(() -> hash(Map.of("tags", Set.of("a", "b"))))
        .isInstanceOf(InvalidArgumentsException.class)
        .hasMessageContaining("$.tags");
  }

  @Test
  void deepInputsAreAcceptedUpToTheLimitAndRejectedBeyond() {
    Object deep = "leaf";
    for (int i = 0; i < CanonicalJson.MAX_DEPTH - 2; i++) {
      deep = List.of(deep);
    }
    Object ok = Map.of("d", deep);
    assertThat(hash(Map.of("x", ok))).startsWith("v1:");
    Object tooDeep = List.of(List.of(ok));
    assertThatThrownBy(() -> hash(Map.of("x", tooDeep)))
        .isInstanceOf(InvalidArgumentsException.class)
        .hasMessageContaining("deeper than " + CanonicalJson.MAX_DEPTH);
  }

  @Test
  void wideInputsHashStably() {
    Map<String, Object> wide = new HashMap<>();
    Map<String, Object> sorted = new TreeMap<>();
    for (int i = 0; i < 20_000; i++) {
      wide.put("k" + i, i);
      sorted.put("k" + i, i);
    }
    assertThat(hash(wide)).isEqualTo(hash(sorted));
    List<Object> longList = new ArrayList<>(Arrays.asList(new Object[50_000]));
    assertThat(hash(Map.of("l", longList))).startsWith("v1:");
  }

  @Test
  void ignoredArgumentsAreLeftOut() {
    Map<String, Object> a = Map.of("order_id", "o1", "idempotency_key", "k1");
    Map<String, Object> b = Map.of("order_id", "o1", "idempotency_key", "k2");
    assertThat(ArgumentHasher.hash(a, Set.of("idempotency_key")))
        .isEqualTo(ArgumentHasher.hash(b, Set.of("idempotency_key")))
        .isEqualTo(hash(Map.of("order_id", "o1")));
    assertThat(hash(a)).isNotEqualTo(hash(b));
  }

  @Test
  void hashCarriesItsVersionTag() {
    assertThat(hash(Map.of())).matches("v1:[0-9a-f]{64}");
    // SHA-256 of "{}"
    assertThat(hash(Map.of()))
        .isEqualTo("v1:44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a");
  }

  @Test
  void storedHashOfAnotherVersionIsNeverComparedAsIfCurrent() {
    String current = hash(Map.of("a", 1));
    assertThat(ArgumentHasher.matches(current, current)).isTrue();
    assertThat(ArgumentHasher.matches("v1:00", current)).isFalse();
    assertThatThrownBy(() -> ArgumentHasher.matches("v9:00", current))
        .isInstanceOf(dev.mcpgate.core.IdempotencyException.class)
        .hasMessageContaining("v9");
  }
}
