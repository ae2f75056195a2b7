package dev.mcpgate.core.hash;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * Golden vectors: argument values covering every rule of the canonical form (version 1), with the
 * hashes that {@link ArgumentHasher#hash} gave for them before the hash path was optimised
 * (2026-05, "Performance round 3", item 5). A stored {@code v1:} hash must never change: any
 * difference here means stored claims would turn into false conflicts. Do not update a literal to
 * make this test pass; fix the code.
 */
class CanonicalHashGoldenTest {

  /** One vector: a name, the arguments, the ignored argument names, the pinned hash. */
  record Vector(String name, Map<String, ?> arguments, Set<String> ignored, String hash) {}

  private static final List<Vector> VECTORS = new ArrayList<>();

  private static void v(String name, Map<String, ?> arguments, String hash) {
    VECTORS.add(new Vector(name, arguments, Set.of(), hash));
  }

  private static void v(String name, Map<String, ?> arguments, Set<String> ignored, String hash) {
    VECTORS.add(new Vector(name, arguments, ignored, hash));
  }

  /** A map keeping the given order (member order must not matter; insertion order is a test). */
  private static Map<String, Object> obj(Object... namesAndValues) {
    Map<String, Object> m = new LinkedHashMap<>();
    for (int i = 0; i < namesAndValues.length; i += 2) {
      m.put((String) namesAndValues[i], namesAndValues[i + 1]);
    }
    return m;
  }

  private static List<Object> arr(Object... items) {
    return new ArrayList<>(Arrays.asList(items));
  }

  /** A string of n code units mixing ASCII, Latin-1, 3-byte, surrogate pairs and escapes. */
  private static String mixed(int n, long seed) {
    Random r = new Random(seed);
    String[] pieces = {
      "abc",
      "é",
      "ü",
      "ÿ",
      "\u00a0",
      "€",
      "日本",
      "\uD83D\uDE00",
      "\"",
      "\\",
      "\n",
      "\u0000",
      "\u001f",
      "\u007f",
      "\u2028",
      "x y z",
      "0123456789"
    };
    StringBuilder sb = new StringBuilder();
    while (sb.length() < n) {
      sb.append(pieces[r.nextInt(pieces.length)]);
    }
    return sb.toString();
  }

  /** The shape of the benchmarks' 1 KB arguments, deterministic. */
  private static Map<String, Object> payload(int lines) {
    Random random = new Random(11);
    Map<String, Object> args = new LinkedHashMap<>();
    args.put("order_id", "ord_" + Long.toHexString(random.nextLong()));
    args.put("amount_cents", 12_345);
    args.put("currency", "EUR");
    List<Object> list = new ArrayList<>();
    for (int i = 0; i < lines; i++) {
      Map<String, Object> line = new LinkedHashMap<>();
      line.put("sku", "sku-" + i);
      line.put("qty", random.nextInt(10) + 1);
      line.put("price", random.nextInt(100_000) / 100.0);
      line.put("note", "line item " + i + " with a short human note, ünïcödé");
      list.add(line);
    }
    args.put("lines", list);
    return args;
  }

  /** Objects sharing member names that need escapes or lie beyond Latin-1. */
  private static List<Object> rows(int n) {
    List<Object> rows = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      rows.add(
          obj(
              "\u0000\u0001\u0002\u0003",
              i,
              "\uD800",
              "x" + i,
              "日本",
              i * 1.5,
              "\"q\\",
              null,
              "plain",
              List.of(i),
              "é?",
              "?" + i));
    }
    return rows;
  }

  /** Objects sharing member names, holding objects that share theirs. */
  private static List<Object> nestedRows(int n) {
    List<Object> rows = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      rows.add(
          obj("b", obj("y", i, "x", "q?\u00ff\u0100"), "a", obj("y", i, "x", "\uD83D\uDE00?")));
    }
    return rows;
  }

  private static Map<String, Object> wide(int n) {
    Map<String, Object> m = new HashMap<>();
    Random r = new Random(5);
    for (int i = 0; i < n; i++) {
      m.put(mixed(1 + r.nextInt(6), i), i % 3 == 0 ? (Object) ("v" + i) : (Object) i);
    }
    return m;
  }

  static {
    // ---- empty, null arguments, null vs absent, booleans
    v("empty", Map.of(), "v1:44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a");
    v(
        "null arguments",
        null,
        "v1:44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a");
    v(
        "null member",
        obj("a", null),
        "v1:d091f9c83c091f79652fe8786375b3fe4ce0861a56f5bfbafedbe431877ff0e8");
    v(
        "booleans",
        obj("t", true, "f", false, "B", Boolean.TRUE),
        "v1:d8e0345c2a47b8093311e055661c456171aac4f1de6b729848d8a4a57c180df2");

    // ---- member order: UTF-16 code units
    v(
        "ascii names",
        obj("b", 1, "a", 2, "A", 3, "_", 4, "aa", 5, "", 6, "a b", 7),
        "v1:af11bf163ab4217df510ec54b2f086a9e789866dece9c3353ffbddbb850fc64d");
    v(
        "surrogate pair names sort before U+E000..U+FFFF",
        obj("\uFB01", 1, "\uD83D\uDE00", 2, "\uE000", 3, "z", 4, "\uD800\uDC00", 5),
        "v1:dd0d07a7f2ac2cf495f8c14ea3cd430d52f5c7b0ec435af64b7e1740f5f59c14");
    v(
        "non-ASCII names",
        obj("é", 1, "e", 2, "ü", 3, "日本", 4, "Ω", 5, "ÿ", 6, "\u0080", 7),
        "v1:031258df492911b47398f8a8b4fe9e3b4d7b3a29f1ab283dca4ce56c8c6e9673");
    v(
        "names needing escapes",
        obj("\"q\"", 1, "back\\slash", 2, "new\nline", 3, "\u0000", 4),
        "v1:39b70e6efb315008fb7968f37bd87ebf78d5163bf79a44dfe23d8d83e15384fd");
    v(
        "more than 16 members",
        wide(40),
        "v1:0d11886b3eb8a43967c363c0dacb7064f985dc2c9a16744e1f5200800e0341b4");
    v(
        "tree map and hash map",
        new TreeMap<>(Map.of("k", 1, "j", List.of(), "l", Map.of())),
        "v1:a1c21313b19bdbf202818d35827e5ae2045ddf6ef294f8b525d047df34b55551");

    // ---- strings
    v(
        "control characters",
        obj("s", "\u0000\u0001\b\t\n\u000b\f\r\u000e\u001f"),
        "v1:997253fd8df761d5dcb072b7670c6c2e6d8ee3da1593191e83a7fd2e7d40e046");
    v(
        "quote backslash slash DEL",
        obj("s", "\"\\/\u007f"),
        "v1:0e1d55f9fa3eee58fc79d09abeebabdef75266d5244c7c1bdd0d7ad40106e04b");
    v(
        "U+2028 U+2029",
        obj("s", "a\u2028b\u2029c"),
        "v1:5b2dc062ac2d05c4b51a388dd0e99e9b161c6c6f0fefeef39629890a42902b84");
    v(
        "lone high surrogate",
        obj("s", "\uD800"),
        "v1:d06a70a1ca4d3ac4099cd5f35ecbb551be652247e0950c05790e8f0c58010851");
    v(
        "lone low surrogate",
        obj("s", "a\uDC00b"),
        "v1:17c0e79c12fae35fc236cc2e83e9cbedba9375c24314fde0864fca3c7141ade1");
    v(
        "reversed pair",
        obj("s", "\uDE00\uD83D"),
        "v1:27d356908920a8359463d36a685c1df959fbfa525c93e024f5e6138724de4338");
    v(
        "high surrogate at end",
        obj("s", "xyz\uDBFF"),
        "v1:eb4f001fd31dac888dbfa55b8843dd0ad8c642e93ea7a04e362ba7dd56c9897f");
    v(
        "Latin-1",
        obj("s", "ünïcödé ÿ © \u00a0 \u0080\u009f"),
        "v1:9d0c71f15c83805d80fc2f8009f7ad8d16f1273688bc11fb90340e2933bced1f");
    v(
        "3-byte and 4-byte UTF-8",
        obj("s", "€ 日本語 \uFFFF \uD83D\uDE00 \uDBFF\uDFFF"),
        "v1:d0b2c471b4d113a0ee99bcda99624faf9945b4f40d08732f6ac41de2fe18fa70");
    v(
        "CharSequence value",
        obj("s", new StringBuilder("built é")),
        "v1:57aa2a6d0fc4b3c07172690bd3b9be399ebf25d9af9cb2eaf2516dd1cc451a93");
    v(
        "strings across buffer boundaries",
        obj(
            "long",
            mixed(3000, 1),
            "ascii",
            "x".repeat(5000),
            "latin",
            "é".repeat(2500),
            mixed(1100, 2),
            mixed(40, 3)),
        "v1:7cdbf7aed56bb9cfb039a29fd48102e40f1fcfb77d10faa8fd18301ccf34297d");

    // ---- numbers
    v("int 1", obj("n", 1), "v1:2bfd14f43d17fc7cea24e0917a8879b4b2f880b8baeec1b9d90fbaad655e71bd");
    v(
        "1.0 double",
        obj("n", 1.0),
        "v1:2bfd14f43d17fc7cea24e0917a8879b4b2f880b8baeec1b9d90fbaad655e71bd");
    v(
        "1e0 BigDecimal",
        obj("n", new BigDecimal("1e0")),
        "v1:2bfd14f43d17fc7cea24e0917a8879b4b2f880b8baeec1b9d90fbaad655e71bd");
    v(
        "10E-1 BigDecimal",
        obj("n", new BigDecimal("10E-1")),
        "v1:2bfd14f43d17fc7cea24e0917a8879b4b2f880b8baeec1b9d90fbaad655e71bd");
    v(
        "2^53+1 vs 2^53",
        obj(
            "a",
            9007199254740993L,
            "b",
            9007199254740992L,
            "c",
            new BigDecimal("9007199254740993")),
        "v1:6d51eaeee3fcc1c8aacb909a322f85b7e7f39bcf1cec002f8cc8fcf863481a2b");
    v(
        "BigDecimal scales",
        obj(
            "a",
            new BigDecimal("1.500"),
            "b",
            new BigDecimal("100"),
            "c",
            new BigDecimal("1E+2"),
            "d",
            new BigDecimal("0.000"),
            "e",
            new BigDecimal("-0.00"),
            "f",
            new BigDecimal("1E-400"),
            "g",
            new BigDecimal("123456789012345678901234567890.12345"),
            "h",
            new BigDecimal("0.0000001"),
            "i",
            new BigDecimal("0.000001"),
            "j",
            new BigDecimal("-12.3400")),
        "v1:9fe5f70a64217a641b2dba349e57916f3f01c1e3bfa23ce78d49533d7389e206");
    v(
        "negative zero",
        obj("d", -0.0, "f", -0.0f, "z", 0.0),
        "v1:2dd519b5f2a01a23beb7a7197e56892ab6d583198f9b369815c8515f528af373");
    v(
        "doubles",
        obj(
            "a",
            arr(
                0.1,
                123.456,
                1e21,
                1e-7,
                2.0e-3,
                1e300,
                Double.MIN_VALUE,
                Double.MAX_VALUE,
                0.30000000000000004,
                -12.5,
                100.0,
                Math.PI,
                1e15 + 0.3,
                123456.789e-20,
                0x1p53,
                0x1p53 + 2,
                -1e22,
                1e23,
                5e-5,
                4.35,
                0.000001,
                1234567.0625)),
        "v1:0425e815edf76d50cda047cdb5bcb38c231790f3425c6256ab7d52ce678efb5c");
    v(
        "floats",
        obj(
            "a",
            arr(
                0.1f,
                3.4028235e38f,
                1.17549435E-38f,
                16777217f,
                1.5f,
                -2.75e-3f,
                1e10f,
                Float.MIN_VALUE)),
        "v1:f82fd9a67fabda1ce7470cfa9cbb9f11e8e3e0d74c43c53fc172dabfe709a0ec");
    v(
        "integers",
        obj(
            "a",
            arr(
                0,
                7,
                -7,
                10,
                -10,
                1000000,
                123456789,
                Integer.MIN_VALUE,
                Integer.MAX_VALUE,
                Long.MIN_VALUE,
                Long.MAX_VALUE,
                (short) 7,
                (byte) -3,
                -1000L,
                1234567890123456789L)),
        "v1:e9602f979ace915b026332a0a526e53d7d489e3c4ea68ddb354f5059ef31a054");
    v(
        "big integers",
        obj(
            "a",
            BigInteger.TWO.pow(64),
            "b",
            new BigInteger("123456789012345678901234567890"),
            "c",
            BigInteger.valueOf(-100),
            "d",
            BigInteger.ZERO),
        "v1:ab5cb31626d7e39c2d6455949aa714c3ed43a549e8b379bbfd44651aad025cf3");

    // ---- nesting
    v(
        "nested arrays and objects",
        obj(
            "a",
            arr(
                1,
                arr(2, arr(3, arr())),
                obj(),
                obj("x", arr(obj("y", null, "b", arr(null, true)))),
                new Object[] {"arr", 1}),
            "o",
            obj("z", obj("y", obj("x", "deep")))),
        "v1:3cc5a054c57da224ffdc30824774fbdf78e04dc91ba427f5405e230a9019fae2");
    v(
        "empty containers",
        obj("a", List.of(), "o", Map.of(), "x", new Object[0]),
        "v1:3c57e2c1e7856828cf55ebd1ec580a2c2dd155974e8d66de8b099d520fb7560f");
    v(
        "array order",
        obj("a", arr(2, 1)),
        "v1:439e3fbf35fa867d156db2626f94efbd435852a97bbe16660ee529d9bda0e502");
    v(
        "rows with escaped names",
        obj("rows", rows(4)),
        "v1:e32130aa446d8ae17f7ff12aa5e5a1b5fafa6432226de088aa5fc6ddfd3b2d7e");
    v(
        "rows of nested objects",
        obj("more", nestedRows(3)),
        "v1:df0bad2932b2e655047d9ccb6c2c18c8abd6cc513af4699607c6b48136214d2c");
    v(
        "payload ~1 KB",
        payload(10),
        "v1:7be1d50d88545f6c2378e7558592e6a9d50130fb0bc5031fecf3a160016e4fb1");
    v(
        "payload ~8 KB",
        payload(80),
        "v1:4925044ddd8ce9b9fa2033da452a7036af98913f8a7d28f74c2df7648437cab5");

    // ---- ignored arguments
    v(
        "ignored key present",
        obj("key", "k1", "a", 1),
        Set.of("key"),
        "v1:015abd7f5cc57a2dd94b7590f04ad8084273905ee33ec5cebeae62276a97f862");
    v(
        "ignored key absent",
        obj("a", 1),
        Set.of("key"),
        "v1:015abd7f5cc57a2dd94b7590f04ad8084273905ee33ec5cebeae62276a97f862");
    v(
        "ignored all",
        obj("key", "k1", "other", 2),
        Set.of("key", "other"),
        "v1:44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a");
    v(
        "ignored nested name untouched",
        obj("a", obj("key", 1)),
        Set.of("key"),
        "v1:2462fe28aa2043a003e453f4b2e76f1149ff042b41a7e32c844f84eb8769d7a2");
  }

  @Test
  void hashesAreThoseOfTodaysCanonicalForm() {
    StringBuilder mismatches = new StringBuilder();
    for (Vector vector : VECTORS) {
      String actual = ArgumentHasher.hash(vector.arguments(), vector.ignored());
      if (!actual.equals(vector.hash())) {
        mismatches
            .append("  ")
            .append(vector.name())
            .append(": pinned ")
            .append(vector.hash())
            .append(", now ")
            .append(actual)
            .append('\n');
      }
    }
    assertThat(mismatches.toString()).as("hashes that changed").isEmpty();
  }

  @Test
  void everyVectorIsDistinctFromTheOthersUnlessEqualByRule() {
    // 1, 1.0, 1e0 and 10E-1 are one value; "ignored key present" equals "ignored key absent"
    assertThat(hashOf("int 1"))
        .isEqualTo(hashOf("1.0 double"))
        .isEqualTo(hashOf("1e0 BigDecimal"))
        .isEqualTo(hashOf("10E-1 BigDecimal"));
    assertThat(hashOf("ignored key present")).isEqualTo(hashOf("ignored key absent"));
    assertThat(hashOf("empty"))
        .isEqualTo(hashOf("null arguments"))
        .isEqualTo(hashOf("ignored all"))
        .isNotEqualTo(hashOf("null member"));
    assertThat(VECTORS.stream().map(Vector::hash).distinct().count()).isEqualTo(VECTORS.size() - 6);
  }

  private static String hashOf(String name) {
    return VECTORS.stream().filter(v -> v.name().equals(name)).findFirst().orElseThrow().hash();
  }
}
