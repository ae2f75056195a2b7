package dev.mcpgate.quarkus.internal;

import io.quarkiverse.mcp.server.FilterContext;
import io.quarkiverse.mcp.server.McpMethod;
import io.quarkiverse.mcp.server.Meta;
import io.quarkiverse.mcp.server.ToolFilter;
import io.quarkiverse.mcp.server.ToolManager.ToolInfo;
import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;

/**
 * The {@code tools/call} of a gated tool being served in this request, as the extension shows it to
 * tool filters (which run in the call's request context before the tool does): the tool's name and
 * the request's {@code _meta}, for a gated tool method that does not declare a {@link Meta}
 * parameter of its own; and whether that call's invocation has entered the gate, so that a gated
 * method called from Java inside it runs as part of its action instead of as a call of its own.
 */
@RequestScoped
public class CurrentCall {
  private volatile String tool;
  private volatile Meta meta;
  private boolean entered;

  /**
   * @param toolName the gated tool about to run
   * @return the request's {@code _meta} when the {@code tools/call} seen was of that tool; else
   *     null (another tool's key is never borrowed)
   */
  Meta meta(String toolName) {
    return toolName.equals(tool) ? meta : null;
  }

  void record(String toolName, Meta meta) {
    synchronized (this) {
      this.tool = toolName;
      this.meta = meta;
      this.entered = false;
    }
  }

  /**
   * Marks the invocation of the recorded {@code tools/call}'s tool as inside the gate.
   *
   * @return true when it was marked (the caller then {@linkplain #exit() exits}); false when no
   *     {@code tools/call} of this tool was recorded, or one is inside already
   */
  synchronized boolean enter(String toolName) {
    if (entered || !toolName.equals(tool)) {
      return false;
    }
    entered = true;
    return true;
  }

  /**
   * @return whether the gated {@code tools/call} of this request is inside the gate
   */
  synchronized boolean inside() {
    return entered;
  }

  synchronized void exit() {
    entered = false;
  }

  /** Records each {@code tools/call} of a gated tool; hides nothing. */
  @Singleton
  public static class Capture implements ToolFilter {
    @Inject CurrentCall current;
    @Inject GatedTools gated;

    @Override
    public boolean test(ToolInfo tool, FilterContext context) {
      if (context.method() == McpMethod.TOOLS_CALL && gated.isGated(tool.name())) {
        current.record(tool.name(), context.meta());
      }
      return true;
    }
  }
}
