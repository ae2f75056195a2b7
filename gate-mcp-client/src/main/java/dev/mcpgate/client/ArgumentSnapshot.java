package dev.mcpgate.client;

import java.lang.reflect.Array;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The arguments of an intent as they were when it was called, sent alike by every attempt: maps,
 * collections and arrays are copied at every depth (a primitive array as an array of its type), so
 * a caller that changes a nested value meanwhile cannot make a retry differ from the first attempt
 * (a conflict, or another natural key). Other values (strings, numbers, the caller's own objects)
 * are sent as they are.
 */
final class ArgumentSnapshot {
  private ArgumentSnapshot() {}

  static Map<String, Object> of(Map<String, ?> arguments) {
    Map<String, Object> copy = new LinkedHashMap<>();
    arguments.forEach((name, value) -> copy.put(name, copied(value)));
    return Collections.unmodifiableMap(copy);
  }

  private static Object copied(Object value) {
    if (value instanceof Map<?, ?> map) {
      Map<Object, Object> copy = new LinkedHashMap<>();
      map.forEach((k, v) -> copy.put(k, copied(v)));
      return Collections.unmodifiableMap(copy);
    }
    if (value instanceof Collection<?> items) {
      return copiedList(items);
    }
    if (value instanceof Object[] items) {
      return copiedList(Arrays.asList(items));
    }
    if (value != null && value.getClass().isArray()) { // int[], byte[]...: sent as they are typed
      int length = Array.getLength(value);
      Object copy = Array.newInstance(value.getClass().getComponentType(), length);
      System.arraycopy(value, 0, copy, 0, length);
      return copy;
    }
    return value;
  }

  private static List<Object> copiedList(Collection<?> items) {
    List<Object> copy = new ArrayList<>(items.size());
    for (Object item : items) {
      copy.add(copied(item));
    }
    return Collections.unmodifiableList(copy);
  }
}
