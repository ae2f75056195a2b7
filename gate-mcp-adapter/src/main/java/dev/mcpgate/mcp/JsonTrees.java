package dev.mcpgate.mcp;

import static java.util.Objects.requireNonNull;

import java.util.Map;

/**
 * Turns a Jackson tree (a {@code JsonNode} of Jackson 2 or Jackson 3) into the plain Java values
 * that the gate hashes: maps, lists, strings, numbers as the tree holds them (a {@link
 * java.math.BigDecimal} stays exact), booleans and null. The gate's core knows no JSON library, so
 * a server on either of the SDK's Jackson lines gets no second one; this class touches only the
 * line whose tree it is given.
 *
 * <pre>{@code
 * ToolCall.of(tenant, "refund_order", key, JsonTrees.toMap(argumentsNode));
 * }</pre>
 */
public final class JsonTrees {
  private static final String JACKSON2 = "com.fasterxml.jackson.databind.JsonNode";
  private static final String JACKSON3 = "tools.jackson.databind.JsonNode";

  private JsonTrees() {}

  /**
   * @param tree a Jackson 2 or Jackson 3 {@code JsonNode}
   * @return its value as plain Java values
   * @throws IllegalArgumentException when {@code tree} is not a Jackson tree, or holds a node with
   *     no JSON value (binary, a POJO, a missing node), naming its path
   */
  public static Object toPlain(Object tree) {
    requireNonNull(tree, "tree must not be null");
    if (isA(tree.getClass(), JACKSON2)) {
      return Jackson2Trees.plain(tree);
    }
    if (isA(tree.getClass(), JACKSON3)) {
      return Jackson3Trees.plain(tree);
    }
    throw new IllegalArgumentException(
        "a Jackson 2 or Jackson 3 JsonNode was expected, not " + tree.getClass().getName());
  }

  /**
   * @param tree a Jackson 2 or Jackson 3 {@code JsonNode} that is an object
   * @return its members, in the tree's order, as plain Java values
   * @throws IllegalArgumentException when {@code tree} is not an object node
   */
  @SuppressWarnings("unchecked")
  public static Map<String, Object> toMap(Object tree) {
    Object plain = toPlain(tree);
    if (!(plain instanceof Map<?, ?> map)) {
      throw new IllegalArgumentException(
          "a JSON object was expected, not "
              + (plain == null ? "null" : plain.getClass().getSimpleName()));
    }
    return (Map<String, Object>) map;
  }

  /**
   * @return true when {@code type} is or extends the class named {@code name}
   */
  private static boolean isA(Class<?> type, String name) {
    for (Class<?> t = type; t != null; t = t.getSuperclass()) {
      if (t.getName().equals(name)) {
        return true;
      }
    }
    return false;
  }

  static IllegalArgumentException noValue(String path, Object nodeType) {
    return new IllegalArgumentException(
        "the JSON node at $"
            + path
            + " is of type "
            + nodeType
            + ", which has no JSON value to hash");
  }
}
