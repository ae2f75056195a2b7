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
 * The {@code _meta} of the {@code tools/call} request being served, for a gated tool method that
 * does not declare a {@link Meta} parameter of its own: the extension shows it to tool filters,
 * which run in the call's request context before the tool does.
 */
@RequestScoped
public class CurrentCall {
  private Meta meta;

  /**
   * @return the request's {@code _meta}, or null when no {@code tools/call} was seen
   */
  Meta meta() {
    return meta;
  }

  void meta(Meta meta) {
    this.meta = meta;
  }

  /** Records the {@code _meta} of each {@code tools/call} of a gated tool; hides nothing. */
  @Singleton
  public static class Capture implements ToolFilter {
    @Inject CurrentCall current;
    @Inject GatedTools gated;

    @Override
    public boolean test(ToolInfo tool, FilterContext context) {
      if (context.method() == McpMethod.TOOLS_CALL && gated.isGated(tool.name())) {
        current.meta(context.meta());
      }
      return true;
    }
  }
}
