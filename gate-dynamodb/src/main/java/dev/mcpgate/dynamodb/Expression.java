package dev.mcpgate.dynamodb;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * Builds the text of DynamoDB expressions together with their placeholders: every attribute name
 * and value is registered when the text uses it, so a request carries exactly the placeholders its
 * expressions use (DynamoDB refuses unused ones) without scanning the text afterwards. One instance
 * per request; not thread-safe.
 */
final class Expression {
  private final Map<String, String> placeholderOf = new LinkedHashMap<>();
  private final Map<String, AttributeValue> values = new HashMap<>();

  /**
   * @return the placeholder ({@code #a0}, ...) for an attribute name; the same one each time
   */
  String name(String attribute) {
    return placeholderOf.computeIfAbsent(attribute, a -> "#a" + placeholderOf.size());
  }

  /**
   * @return a new placeholder ({@code :v0}, ...) for a value
   */
  String value(AttributeValue value) {
    String placeholder = ":v" + values.size();
    values.put(placeholder, value);
    return placeholder;
  }

  /**
   * @return {@code name = value}
   */
  String equals(String attribute, AttributeValue value) {
    return name(attribute) + " = " + value(value);
  }

  /**
   * @return the names for {@code expressionAttributeNames}, or null when there are none
   */
  Map<String, String> names() {
    if (placeholderOf.isEmpty()) {
      return null;
    }
    Map<String, String> names = new HashMap<>();
    placeholderOf.forEach((attribute, placeholder) -> names.put(placeholder, attribute));
    return names;
  }

  /**
   * @return the values for {@code expressionAttributeValues}, or null when there are none
   */
  Map<String, AttributeValue> values() {
    return values.isEmpty() ? null : Map.copyOf(values);
  }
}
