package dev.mcpgate.quarkus.internal;

import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import io.quarkiverse.mcp.server.AudioContent;
import io.quarkiverse.mcp.server.Content;
import io.quarkiverse.mcp.server.ImageContent;
import io.quarkiverse.mcp.server.MetaKey;
import io.quarkiverse.mcp.server.ResourceLink;
import io.quarkiverse.mcp.server.TextContent;
import io.quarkiverse.mcp.server.ToolResponse;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * Converts between the extension's {@link ToolResponse} and the adapter's {@link CallToolResult},
 * which is what the gate stores and replays and what its refusals are made of. Text, image, audio
 * and resource-link content, structured content, {@code isError} and {@code _meta} are carried;
 * content annotations are not.
 */
final class ToolResponses {
  private ToolResponses() {}

  /**
   * @param response what the tool method returned
   * @param toTree turns structured content into maps, lists and scalars (the app's JSON mapper)
   * @throws IllegalArgumentException for content that cannot be stored (an embedded resource)
   */
  static CallToolResult toResult(ToolResponse response, Function<Object, Object> toTree) {
    if (response == null) {
      throw new IllegalArgumentException("the gated tool returned null instead of a ToolResponse");
    }
    List<McpSchema.Content> content = new ArrayList<>();
    if (response.content() != null) {
      for (Content c : response.content()) {
        content.add(toResult(c));
      }
    }
    Object structured =
        response.structuredContent() == null ? null : toTree.apply(response.structuredContent());
    return new CallToolResult(
        content, response.isError(), structured, keysAsText(response._meta()));
  }

  private static McpSchema.Content toResult(Content c) {
    if (c instanceof TextContent t) {
      return new McpSchema.TextContent(null, t.text(), keysAsText(t._meta()));
    }
    if (c instanceof ImageContent i) {
      return new McpSchema.ImageContent(null, i.data(), i.mimeType(), keysAsText(i._meta()));
    }
    if (c instanceof AudioContent a) {
      return new McpSchema.AudioContent(null, a.data(), a.mimeType(), keysAsText(a._meta()));
    }
    if (c instanceof ResourceLink l) {
      return new McpSchema.ResourceLink(
          l.name(),
          l.title(),
          l.uri(),
          l.description(),
          l.mimeType(),
          l.size() == null ? null : l.size().longValue(),
          null,
          keysAsText(l._meta()));
    }
    throw new IllegalArgumentException(
        "a gated tool's result cannot hold "
            + c.getClass().getSimpleName()
            + " content: gate-quarkus stores text, image, audio and resource links");
  }

  /**
   * @return the result as the extension sends it: a stored result, a replay (with its {@code _meta}
   *     marks) or a refusal
   */
  static ToolResponse toResponse(CallToolResult result) {
    List<Content> content = new ArrayList<>();
    if (result.content() != null) {
      for (McpSchema.Content c : result.content()) {
        content.add(toResponse(c));
      }
    }
    return new ToolResponse(
        Boolean.TRUE.equals(result.isError()),
        content,
        result.structuredContent(),
        metaKeys(result.meta()));
  }

  private static Content toResponse(McpSchema.Content c) {
    if (c instanceof McpSchema.TextContent t) {
      return new TextContent(t.text(), metaKeys(t.meta()), null);
    }
    if (c instanceof McpSchema.ImageContent i) {
      return new ImageContent(i.data(), i.mimeType(), metaKeys(i.meta()), null);
    }
    if (c instanceof McpSchema.AudioContent a) {
      return new AudioContent(a.data(), a.mimeType(), metaKeys(a.meta()), null);
    }
    if (c instanceof McpSchema.ResourceLink l) {
      return new ResourceLink(
          l.uri(),
          l.mimeType(),
          l.name(),
          l.title(),
          l.description(),
          l.size() == null ? null : Math.toIntExact(l.size()),
          metaKeys(l.meta()),
          null);
    }
    throw new IllegalArgumentException(
        "a stored result holds " + c.type() + " content, which gate-quarkus does not replay");
  }

  private static Map<String, Object> keysAsText(Map<MetaKey, Object> meta) {
    if (meta == null || meta.isEmpty()) {
      return null;
    }
    Map<String, Object> out = new LinkedHashMap<>();
    meta.forEach((k, v) -> out.put(k.toString(), v));
    return out;
  }

  private static Map<MetaKey, Object> metaKeys(Map<String, Object> meta) {
    if (meta == null || meta.isEmpty()) {
      return null;
    }
    Map<MetaKey, Object> out = new LinkedHashMap<>();
    meta.forEach((k, v) -> out.put(MetaKey.from(k), v));
    return out;
  }
}
