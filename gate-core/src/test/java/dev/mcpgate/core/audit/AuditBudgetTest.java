package dev.mcpgate.core.audit;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * An audit record has a byte budget (issue 34, finding 3): what a call can make long is cut when
 * the record is made, with the cut said in the record, and the redactions never build more.
 */
class AuditBudgetTest {

  private static AuditRecord record(String arguments, String reason, String summary) {
    return new AuditRecord(
        Instant.EPOCH,
        "acme",
        "refund_order",
        "k-1",
        "v1:00",
        arguments,
        AuditDecision.EXECUTED,
        reason,
        1,
        summary,
        10);
  }

  private static Map<String, Object> manyNames(int n) {
    Map<String, Object> args = new HashMap<>();
    for (int i = 0; i < n; i++) {
      args.put("argument_name_" + i, i);
    }
    return args;
  }

  @Test
  void aLongArgumentsTextIsCutToTheBudgetSayingHowMuch() {
    String huge = "x".repeat(4_288_890);
    AuditRecord r = record(huge, "r".repeat(5000), "s".repeat(5000));
    assertThat(r.arguments())
        .hasSizeLessThanOrEqualTo(AuditRecord.MAX_ARGUMENTS_CHARS)
        .startsWith("xxxx")
        .endsWith("\u2026[cut: kept 3961 of 4288890 characters]");
    assertThat(r.reason())
        .hasSizeLessThanOrEqualTo(AuditRecord.MAX_TEXT_CHARS)
        .endsWith("of 5000 characters]");
    assertThat(r.resultSummary()).hasSizeLessThanOrEqualTo(AuditRecord.MAX_TEXT_CHARS);
  }

  @Test
  void textsWithinTheBudgetAreKeptAsTheyAre() {
    String exact = "y".repeat(AuditRecord.MAX_ARGUMENTS_CHARS);
    AuditRecord r = record(exact, null, null);
    assertThat(r.arguments()).isSameAs(exact);
    assertThat(r.reason()).isNull();
    String longestName = "\ud83d\ude00".repeat(255); // 255 code points, 510 chars: valid
    AuditRecord named =
        new AuditRecord(
            Instant.EPOCH,
            longestName,
            longestName,
            longestName,
            null,
            "[]",
            AuditDecision.EXECUTED,
            null,
            0,
            null,
            0);
    assertThat(named.tenant()).isEqualTo(longestName);
    assertThat(named.tool()).isEqualTo(longestName);
    assertThat(named.key()).isEqualTo(longestName);
  }

  @Test
  void aCutNeverSplitsASurrogatePair() {
    for (int shift = 0; shift < 2; shift++) {
      String text = "a".repeat(shift) + "\ud83d\ude00".repeat(5000);
      String cut = record(text, null, null).arguments();
      int markerAt = cut.indexOf('\u2026');
      assertThat(Character.isHighSurrogate(cut.charAt(markerAt - 1))).isFalse();
      assertThat(cut).hasSizeLessThanOrEqualTo(AuditRecord.MAX_ARGUMENTS_CHARS);
    }
  }

  @Test
  void argumentNamesOfAHugeCallStopAtTheBudgetAndCountTheRest() {
    Map<String, Object> args = manyNames(200_000);
    String whole = new TreeSet<>(args.keySet()).toString();
    String kept = Redaction.argumentNames().redact("t", args);
    assertThat(kept)
        .hasSizeLessThanOrEqualTo(AuditRecord.MAX_ARGUMENTS_CHARS)
        .endsWith(" of " + whole.length() + " characters]");
    String before = kept.substring(0, kept.indexOf('\u2026'));
    assertThat(whole).startsWith(before);
    // and the record keeps it as it is: one cut, not two
    assertThat(record(kept, null, null).arguments()).isSameAs(kept);
  }

  @Test
  void theRedactionsWriteWhatTheyAlwaysWroteWithinTheBudget() {
    Map<String, Object> inner = new LinkedHashMap<>();
    inner.put("z", 1);
    inner.put("a", List.of("p", 2.5, true));
    Map<String, Object> args = new HashMap<>();
    args.put("order_id", "ord_9f2");
    args.put("amount_cents", 500);
    args.put("nested", inner);
    args.put("nothing", null);
    args.put("array", new Object[] {"q", 1});
    Map<String, Object> asBefore = new TreeMap<>(args);
    asBefore.put("array", List.of("q", 1)); // arrays are now written as lists
    assertThat(Redaction.none().redact("t", args)).isEqualTo(asBefore.toString());
    assertThat(Redaction.argumentNames().redact("t", args))
        .isEqualTo(new TreeSet<>(args.keySet()).toString());
    assertThat(Redaction.argumentNames().redact("t", Map.of())).isEqualTo("[]");
    assertThat(Redaction.none().redact("t", Map.of())).isEqualTo("{}");
  }

  @Test
  void noRedactionOfAHugeCallStopsAtTheBudget() {
    String none = Redaction.none().redact("t", manyNames(200_000));
    assertThat(none)
        .hasSizeLessThanOrEqualTo(AuditRecord.MAX_ARGUMENTS_CHARS)
        .startsWith("{argument_name_0=0, argument_name_1=1, argument_name_10=10")
        .endsWith("characters; the rest was not rendered]");
    String oneLongValue = Redaction.none().redact("t", Map.of("body", "b".repeat(10_000_000)));
    assertThat(oneLongValue).hasSizeLessThanOrEqualTo(AuditRecord.MAX_ARGUMENTS_CHARS);
  }

  @Test
  void noRedactionOfADeepArgumentRendersOnASmallStack() throws Exception {
    Object deep = "leaf";
    for (int i = 0; i < 100_000; i++) {
      deep = i % 2 == 0 ? List.of(deep) : Map.of("k", deep);
    }
    Map<String, Object> args = Map.of("x", deep);
    Object outcome = onSmallStack(() -> Redaction.none().redact("t", args));
    assertThat(outcome).isInstanceOf(String.class);
    assertThat((String) outcome)
        .startsWith("{x={k=[{k=[")
        .hasSizeLessThanOrEqualTo(AuditRecord.MAX_ARGUMENTS_CHARS);
    // shallow enough to fit: rendered whole, closed properly
    Object shallow = "leaf";
    for (int i = 0; i < 100; i++) {
      shallow = i % 2 == 0 ? List.of(shallow) : Map.of("k", shallow);
    }
    assertThat(Redaction.none().redact("t", Map.of("x", shallow)))
        .isEqualTo(new TreeMap<>(Map.of("x", shallow)).toString());
  }

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
            256 * 1024);
    t.start();
    t.join();
    return outcome.get();
  }
}
