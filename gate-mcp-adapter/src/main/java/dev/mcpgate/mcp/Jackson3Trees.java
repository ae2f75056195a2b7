package dev.mcpgate.mcp;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import tools.jackson.databind.JsonNode;

/** {@link JsonTrees} for Jackson 3; loaded only when a Jackson 3 tree is given. */
final class Jackson3Trees {
  private Jackson3Trees() {}

  static Object plain(Object tree) {
    return plain((JsonNode) tree, "");
  }

  private static Object plain(JsonNode node, String path) {
    return switch (node.getNodeType()) {
      case NULL -> null;
      case BOOLEAN -> node.booleanValue();
      case STRING -> node.stringValue();
      case NUMBER -> node.numberValue();
      case ARRAY -> {
        List<Object> list = new ArrayList<>(node.size());
        Iterator<JsonNode> items = node.values().iterator();
        for (int i = 0; items.hasNext(); i++) {
          list.add(plain(items.next(), path + "[" + i + "]"));
        }
        yield list;
      }
      case OBJECT -> {
        Map<String, Object> map = new LinkedHashMap<>();
        for (Map.Entry<String, JsonNode> e : node.properties()) {
          map.put(e.getKey(), plain(e.getValue(), path + "." + e.getKey()));
        }
        yield map;
      }
      default -> throw JsonTrees.noValue(path, node.getNodeType());
    };
  }
}
