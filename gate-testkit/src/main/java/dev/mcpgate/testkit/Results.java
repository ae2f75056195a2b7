package dev.mcpgate.testkit;

import dev.mcpgate.mcp.McpGateErrors;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.lang.reflect.Array;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/** Comparing tool results as a retrying client sees them. */
final class Results {
  private Results() {}

  /**
   * @return true when two results are the same but for the replay marks in {@code _meta}
   */
  static boolean same(CallToolResult a, CallToolResult b) {
    return Objects.equals(a.content(), b.content())
        && sameValue(a.structuredContent(), b.structuredContent())
        && Objects.equals(Boolean.TRUE.equals(a.isError()), Boolean.TRUE.equals(b.isError()))
        && Objects.equals(withoutMarks(a.meta()), withoutMarks(b.meta()));
  }

  /**
   * @return true when two JSON values are equal, numbers by value: a replay keeps a number's value
   *     but not always its spelling ({@code -0.0} comes back as {@code 0.0}, {@code 2.0} may as
   *     {@code 2})
   */
  static boolean sameValue(Object a, Object b) {
    if (a instanceof Number x && b instanceof Number y) {
      BigDecimal dx = decimal(x);
      BigDecimal dy = decimal(y);
      return dx != null && dy != null ? dx.compareTo(dy) == 0 : Objects.equals(x, y);
    }
    if (a instanceof Map<?, ?> x && b instanceof Map<?, ?> y) {
      return x.size() == y.size()
          && x.entrySet().stream()
              .allMatch(
                  e -> y.containsKey(e.getKey()) && sameValue(e.getValue(), y.get(e.getKey())));
    }
    if (a instanceof List<?> x && b instanceof List<?> y) {
      if (x.size() != y.size()) {
        return false;
      }
      for (int i = 0; i < x.size(); i++) {
        if (!sameValue(x.get(i), y.get(i))) {
          return false;
        }
      }
      return true;
    }
    return Objects.equals(a, b);
  }

  private static BigDecimal decimal(Number n) {
    try {
      return new BigDecimal(n.toString());
    } catch (NumberFormatException e) {
      return null; // NaN, Infinity
    }
  }

  /**
   * @return true when the result carries the gate's replay mark
   */
  static boolean isReplay(CallToolResult result) {
    return result.meta() != null
        && Boolean.TRUE.equals(result.meta().get(McpGateErrors.META_REPLAYED));
  }

  static Map<String, Object> withoutMarks(Map<String, Object> meta) {
    if (meta == null) {
      return Map.of();
    }
    Map<String, Object> m = new LinkedHashMap<>(meta);
    m.remove(McpGateErrors.META_REPLAYED);
    m.remove(McpGateErrors.META_FIRST_EXECUTED_AT);
    m.remove(McpGateErrors.META_SETTLED_AT);
    return m;
  }

  @SuppressWarnings("unchecked")
  static String errorType(CallToolResult result) {
    if (!Boolean.TRUE.equals(result.isError())) {
      return null;
    }
    if (result.structuredContent() instanceof Map<?, ?> m
        && m.get("error") instanceof Map<?, ?> e) {
      Object type = ((Map<String, Object>) e).get("type");
      return type == null ? "error" : type.toString();
    }
    return "error";
  }

  static String describe(CallToolResult r) {
    return "{content="
        + r.content()
        + ", structuredContent="
        + r.structuredContent()
        + ", isError="
        + r.isError()
        + ", _meta="
        + r.meta()
        + "}";
  }

  /**
   * @return a probe's value as read now: maps, collections and arrays copied (deeply), atomic
   *     counters read, so that a live object a probe returns is not compared with itself later
   */
  static Object snapshot(Object value) {
    if (value instanceof Map<?, ?> m) {
      Map<Object, Object> copy = new LinkedHashMap<>();
      m.forEach((k, v) -> copy.put(k, snapshot(v)));
      return copy;
    }
    if (value instanceof Set<?> set) {
      Set<Object> copy = new LinkedHashSet<>();
      set.forEach(v -> copy.add(snapshot(v)));
      return copy;
    }
    if (value instanceof Collection<?> c) {
      List<Object> copy = new ArrayList<>();
      c.forEach(v -> copy.add(snapshot(v)));
      return copy;
    }
    if (value != null && value.getClass().isArray()) {
      List<Object> copy = new ArrayList<>();
      for (int i = 0; i < Array.getLength(value); i++) {
        copy.add(snapshot(Array.get(value, i)));
      }
      return copy;
    }
    if (value instanceof AtomicInteger || value instanceof AtomicLong) {
      return ((Number) value).longValue();
    }
    return value;
  }

  /**
   * @return the one answer among {@code results} that is not an error, when every other is the same
   *     error and none is a replay (a tool that fails its second call); null otherwise
   */
  static CallToolResult onceThenRefused(List<CallToolResult> results) {
    List<CallToolResult> answered =
        results.stream().filter(r -> !Boolean.TRUE.equals(r.isError())).toList();
    List<CallToolResult> errors =
        results.stream().filter(r -> Boolean.TRUE.equals(r.isError())).toList();
    boolean once =
        answered.size() == 1
            && !errors.isEmpty()
            && errors.stream().allMatch(e -> same(errors.get(0), e))
            && results.stream().noneMatch(Results::isReplay);
    return once ? answered.get(0) : null;
  }
}
