package dev.mcpgate.testkit;

import static java.util.Objects.requireNonNull;

import dev.mcpgate.mcp.KeySource;
import dev.mcpgate.mcp.McpGateErrors;
import dev.mcpgate.mcp.ToolPolicy;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.server.McpServerFeatures;
import io.modelcontextprotocol.spec.McpSchema;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.opentest4j.AssertionFailedError;

/**
 * Which of a server's tools write, and which of those are gated. Built from a real client's {@code
 * tools/list} or from a list of tool specifications.
 *
 * <pre>{@code
 * ToolSurvey survey = ToolSurvey.of(client);
 * System.out.println(survey.table());
 * survey.assertAllWriteToolsGated();
 * }</pre>
 *
 * <p>A tool is <b>read-only</b> when annotated {@code readOnlyHint=true}; <b>gated</b> when MCP
 * Gate wrapped it (its {@code _meta} says how); <b>declared safe</b> when its author set {@code
 * idempotentHint=true} or gave its input schema an {@code idempotency_key} without MCP Gate (a
 * replace keyed by an argument the caller has, a delete that fails the second time, a key the
 * tool's own code reads): the listing cannot show that anything honours it, so verify such a
 * declaration with {@link RetryCheck}. Every other tool writes with nothing to stop a retry from
 * writing twice: <b>not gated</b>.
 */
public final class ToolSurvey {

  /** How a tool stands. */
  public enum Kind {
    /** Gated by MCP Gate: its listing carries the gate's definition. */
    GATED,
    /**
     * Not gated by MCP Gate, but declared idempotent by its author ({@code idempotentHint=true}, or
     * an {@code idempotency_key} in its input schema).
     */
    DECLARED_SAFE,
    /** Annotated read-only: nothing to gate. */
    READ_ONLY,
    /** A write tool with no gate and no declaration: a retry may write twice. */
    NOT_GATED
  }

  /**
   * One tool.
   *
   * @param tool the tool's name
   * @param kind how it stands
   * @param detail how it is keyed, or why it is listed
   */
  public record Entry(String tool, Kind kind, String detail) {}

  private final List<Entry> entries;

  private ToolSurvey(List<Entry> entries) {
    this.entries = List.copyOf(entries);
  }

  /**
   * @param client an initialized client of the server
   * @return the survey of every tool {@code tools/list} returns (all pages)
   */
  public static ToolSurvey of(McpSyncClient client) {
    requireNonNull(client, "client must not be null");
    return ofTools(listTools(client));
  }

  /**
   * Whether {@code tools/list} shows {@code tool} gated by MCP Gate ({@code _meta}
   * dev.mcpgate/idempotency). Only then is a replay mark its own: a tool that forwards to a gated
   * one returns that tool's mark with work of its own done again (review: a declared-safe tool that
   * mailed, then forwarded, passed every check with no probe).
   */
  static boolean gatedByMcpGate(McpSyncClient client, String tool) {
    return listTools(client).stream()
        .anyMatch(
            t ->
                t.name().equals(tool)
                    && t.meta() != null
                    && t.meta().get(McpGateErrors.META_TOOL) instanceof Map<?, ?>);
  }

  /** Every tool {@code tools/list} returns, all pages. */
  static List<McpSchema.Tool> listTools(McpSyncClient client) {
    List<McpSchema.Tool> tools = new ArrayList<>();
    String cursor = null;
    do {
      McpSchema.ListToolsResult page =
          cursor == null ? client.listTools() : client.listTools(cursor);
      tools.addAll(page.tools());
      cursor = page.nextCursor();
    } while (cursor != null);
    return tools;
  }

  /**
   * @return the survey of these specifications' tools
   */
  public static ToolSurvey ofSpecifications(List<McpServerFeatures.SyncToolSpecification> specs) {
    requireNonNull(specs, "specs must not be null");
    return ofTools(specs.stream().map(McpServerFeatures.SyncToolSpecification::tool).toList());
  }

  /**
   * @return the survey of these tool definitions
   */
  public static ToolSurvey ofTools(List<McpSchema.Tool> tools) {
    requireNonNull(tools, "tools must not be null");
    List<Entry> entries = new ArrayList<>();
    for (McpSchema.Tool tool : tools) {
      entries.add(classify(tool));
    }
    return new ToolSurvey(entries);
  }

  /** A survey of entries already classified (the starter's safe tools as declared safe). */
  static ToolSurvey ofEntries(List<Entry> entries) {
    return new ToolSurvey(entries);
  }

  private static Entry classify(McpSchema.Tool tool) {
    McpSchema.ToolAnnotations a = tool.annotations();
    if (a != null && Boolean.TRUE.equals(a.readOnlyHint())) {
      return new Entry(tool.name(), Kind.READ_ONLY, "readOnlyHint=true");
    }
    Object gating = tool.meta() == null ? null : tool.meta().get(McpGateErrors.META_TOOL);
    if (gating instanceof Map<?, ?> g) {
      List<String> parts = new ArrayList<>();
      if (g.get("key_argument") != null) {
        parts.add("argument " + g.get("key_argument"));
      }
      List<?> sources = g.get("key_sources") instanceof List<?> l ? l : List.of();
      if (sources.contains("meta")) {
        parts.add("_meta " + McpGateErrors.META_KEY);
      }
      if (sources.contains("header")) {
        parts.add("header " + KeySource.HEADER_CONTEXT_KEY);
      }
      if (g.get("natural_key") != null) {
        parts.add("natural key " + g.get("natural_key"));
      }
      String how =
          Boolean.FALSE.equals(g.get("key_required"))
              ? "key optional (a call without one runs ungated, and may write twice): "
              : "key: ";
      return new Entry(tool.name(), Kind.GATED, how + String.join(" or ", parts));
    }
    if (tool.inputSchema() != null
        && tool.inputSchema().get("properties") instanceof Map<?, ?> p
        && p.containsKey(ToolPolicy.DEFAULT_KEY_ARGUMENT)) {
      return new Entry(
          tool.name(),
          Kind.DECLARED_SAFE,
          "argument "
              + ToolPolicy.DEFAULT_KEY_ARGUMENT
              + " in its schema, not gated by MCP Gate: verify it with RetryCheck");
    }
    if (a != null && Boolean.TRUE.equals(a.idempotentHint())) {
      return new Entry(
          tool.name(),
          Kind.DECLARED_SAFE,
          "idempotentHint=true, not gated: verify it with RetryCheck");
    }
    return new Entry(
        tool.name(),
        Kind.NOT_GATED,
        "writes (not read-only) with no idempotency key: a retry may write twice");
  }

  /**
   * @return every tool, in the server's order
   */
  public List<Entry> entries() {
    return entries;
  }

  /**
   * @return the write tools with neither a gate nor a declaration
   */
  public List<Entry> notGated() {
    return entries.stream().filter(e -> e.kind() == Kind.NOT_GATED).toList();
  }

  /**
   * @return the tools declared idempotent by their authors but not gated
   */
  public List<Entry> declaredSafe() {
    return entries.stream().filter(e -> e.kind() == Kind.DECLARED_SAFE).toList();
  }

  /**
   * @return a readable table: tool, kind, detail
   */
  public String table() {
    int width = Math.max(4, entries.stream().mapToInt(e -> e.tool().length()).max().orElse(4));
    StringBuilder sb = new StringBuilder();
    sb.append(String.format("%-" + width + "s  %-13s  %s%n", "tool", "kind", "detail"));
    for (Entry e : entries) {
      String kind =
          switch (e.kind()) {
            case GATED -> "gated";
            case DECLARED_SAFE -> "declared safe";
            case READ_ONLY -> "read-only";
            case NOT_GATED -> "NOT GATED";
          };
      sb.append(String.format("%-" + width + "s  %-13s  %s%n", e.tool(), kind, e.detail()));
    }
    return sb.toString();
  }

  /**
   * Fails when a write tool has neither a gate nor an author's declaration of idempotence.
   *
   * @throws AssertionFailedError naming every such tool, with the whole table
   */
  public void assertAllWriteToolsGated() {
    List<Entry> bad = notGated();
    if (!bad.isEmpty()) {
      throw new AssertionFailedError(
          "write tools without an idempotency gate: "
              + bad.stream().map(Entry::tool).toList()
              + "\n"
              + table());
    }
  }
}
