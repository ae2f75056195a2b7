package dev.mcpgate.client;

import io.modelcontextprotocol.spec.McpSchema;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
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

  /** At most this many pages of one {@code tools/list} are read: {@value}. */
  static final int MAX_PAGES = 100;

  /**
   * Follows the cursors of one {@code tools/list}, and ends a listing that does not end: a cursor
   * seen before (pages that cycle), or more than {@link #MAX_PAGES} pages. Such a listing fails as
   * a failed {@code tools/list} does (retried within the retry policy; after a lost answer the
   * effect stays unknown), never hanging the intent.
   */
  static final class Pages {
    private final Set<String> cursors = new HashSet<>();
    private int read;

    /**
     * @param page the page just read
     * @return the cursor of the next page, or null when the listing ended
     * @throws ListingDidNotEnd if the cursor was seen before in this listing, or the listing has
     *     {@link #MAX_PAGES} pages without an end
     */
    String next(McpSchema.ListToolsResult page) {
      read++;
      String cursor = page.nextCursor();
      if (cursor == null) {
        return null;
      }
      if (!cursors.add(cursor)) {
        throw new ListingDidNotEnd(
            "tools/list repeated the cursor \"" + cursor + "\" after " + read + " pages");
      }
      if (read >= MAX_PAGES) {
        throw new ListingDidNotEnd("tools/list did not end within " + MAX_PAGES + " pages");
      }
      return cursor;
    }
  }

  /** A {@code tools/list} whose pages do not end. */
  static final class ListingDidNotEnd extends IllegalStateException {
    private static final long serialVersionUID = 1L;

    ListingDidNotEnd(String message) {
      super(message);
    }
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
