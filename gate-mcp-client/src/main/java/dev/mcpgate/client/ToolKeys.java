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
   * Stores a listing of every tool, and reads the tool's placement from that listing: never from
   * the cache, which another intent's listing or {@link #clear()} may empty meanwhile.
   *
   * @param tool the tool called
   * @param pages every page of one {@code tools/list}
   * @return where the tool reads its key as listed; {@link KeyPlacement#unlisted()} for a tool the
   *     server did not list (the server answers such a call itself), which the cache then forgets
   */
  KeyPlacement relisted(String tool, List<McpSchema.ListToolsResult> pages) {
    KeyPlacement found = null;
    for (McpSchema.ListToolsResult page : pages) {
      if (page.tools() == null) {
        continue;
      }
      for (McpSchema.Tool listed : page.tools()) {
        KeyPlacement placement = KeyPlacement.of(listed, keyArgument);
        placements.put(listed.name(), placement);
        if (listed.name().equals(tool)) {
          found = placement;
        }
      }
    }
    if (found == null) {
      placements.remove(tool);
      return KeyPlacement.unlisted();
    }
    return found;
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
