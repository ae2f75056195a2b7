package dev.mcpgate.quarkus.internal;

import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.introspect.BeanPropertyDefinition;
import java.lang.reflect.Type;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Where a gated tool's argument holds a {@code double} or a {@code float}, found the way the
 * interceptor turns it into JSON ({@code ObjectMapper.convertValue}): such a value reaches the gate
 * as a double, which the adapter refuses as inexact. A {@code BigDecimal} is found too: the MCP
 * server makes it from the double it read, so it is no more exact, though the gate takes it. A
 * primitive one on a path of plain properties is written whenever the argument is given, whole
 * numbers too; a boxed one, or one inside an array, a collection, a map or an {@code Optional},
 * only when present.
 */
final class InexactNumbers {
  private final ObjectMapper json;

  /**
   * @param path where the value sits: the argument's name, then properties ({@code .amount}) and
   *     elements ({@code []})
   * @param always true when every call that gives the argument carries it
   * @param decimal true for a {@code BigDecimal}, made from the double the MCP server read: the
   *     gate hashes it, but two amounts that differ past a double's precision are one intent
   */
  record Found(String path, boolean always, boolean decimal) {}

  InexactNumbers(ObjectMapper json) {
    this.json = json;
  }

  /**
   * @return every place in the argument's type that holds a double or a float
   */
  List<Found> in(String argument, Type type) {
    List<Found> found = new ArrayList<>();
    walk(json.constructType(type), argument, true, new HashSet<>(), found);
    return found;
  }

  private void walk(JavaType t, String path, boolean always, Set<Class<?>> seen, List<Found> out) {
    Class<?> raw = t.getRawClass();
    if (raw == double.class || raw == float.class) {
      out.add(new Found(path, always, false));
    } else if (raw == Double.class || raw == Float.class) {
      out.add(new Found(path, false, false));
    } else if (raw == BigDecimal.class) {
      out.add(new Found(path, false, true));
    } else if (t.isContainerType() || t.isReferenceType()) {
      JavaType content = t.getContentType();
      if (content != null) {
        walk(content, t.isReferenceType() ? path : path + "[]", false, seen, out);
      }
    } else if (!raw.isPrimitive()
        && !raw.isEnum()
        && !raw.getName().startsWith("java.")
        && seen.add(raw)) {
      for (BeanPropertyDefinition p :
          json.getSerializationConfig().introspect(t).findProperties()) {
        if (p.couldSerialize()) {
          walk(p.getPrimaryType(), path + "." + p.getName(), always, seen, out);
        }
      }
    }
  }
}
