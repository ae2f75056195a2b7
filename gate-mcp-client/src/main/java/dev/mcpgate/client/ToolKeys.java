package dev.mcpgate.client;

import io.modelcontextprotocol.spec.McpSchema;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/** Where each tool of one server reads its key, as its {@code tools/list} definition says. */
final class ToolKeys {
  private final String keyArgument;
  private final Map<String, KeyPlacement> placements = new ConcurrentHashMap<>();

  ToolKeys(String keyArgument) {
    this.keyArgument = keyArgument;
  }

  /**
   * @return where the tool reads its key, or null when its definition was not listed yet
   */
  KeyPlacement cached(String tool) {
    return placements.get(tool);
  }

  /**
   * @return where the tool reads its key, after a listing: {@link KeyPlacement#unlisted()} for a
   *     tool the server did not list (the server answers such a call itself)
   */
  KeyPlacement listedOrMeta(String tool) {
    KeyPlacement p = placements.get(tool);
    return p == null ? KeyPlacement.unlisted() : p;
  }

  void store(List<McpSchema.Tool> tools) {
    if (tools != null) {
      for (McpSchema.Tool tool : tools) {
        placements.put(tool.name(), KeyPlacement.of(tool, keyArgument));
      }
    }
  }

  /** Drops one tool's definition, so that a listing without it leaves it unlisted. */
  void forget(String tool) {
    placements.remove(tool);
  }

  void clear() {
    placements.clear();
  }

  static String checkKeyArgument(String name) {
    if (name == null) {
      throw new NullPointerException("keyArgument must not be null");
    }
    if (name.isBlank()) {
      throw new IllegalArgumentException("keyArgument must not be blank, was \"" + name + "\"");
    }
    return name;
  }
}
