package dev.mcpgate.quarkus.internal;

import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import io.quarkiverse.mcp.server.AudioContent;
import io.quarkiverse.mcp.server.BlobResourceContents;
import io.quarkiverse.mcp.server.Content;
import io.quarkiverse.mcp.server.EmbeddedResource;
import io.quarkiverse.mcp.server.ImageContent;
import io.quarkiverse.mcp.server.MetaKey;
import io.quarkiverse.mcp.server.ResourceContents;
import io.quarkiverse.mcp.server.ResourceLink;
import io.quarkiverse.mcp.server.TextContent;
import io.quarkiverse.mcp.server.TextResourceContents;
import io.quarkiverse.mcp.server.ToolResponse;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * Converts between the extension's {@link ToolResponse} and the adapter's {@link CallToolResult},
 * which is what the gate stores and replays and what its refusals are made of. Text, image, audio,
 * resource-link and embedded-resource (text or blob) content, structured content, {@code isError}
 * and {@code _meta} are carried; content annotations are not.
 */
final class ToolResponses {
  private ToolResponses() {}

  /**
   * @param response what the tool method returned
   * @param toTree turns structured content into maps, lists and scalars (the app's JSON mapper)
   * @throws IllegalArgumentException for a result that cannot be stored (null, or content of a kind
   *     this class does not know)
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
    if (c instanceof EmbeddedResource r) {
      return new McpSchema.EmbeddedResource(null, toResult(r.resource()), keysAsText(r._meta()));
    }
    throw new IllegalArgumentException(
        "a gated tool's result cannot hold "
            + (c == null ? "null" : c.getClass().getSimpleName())
            + " content: gate-quarkus stores text, image, audio, resource links and embedded"
            + " resources");
  }

  private static McpSchema.ResourceContents toResult(ResourceContents r) {
    if (r instanceof TextResourceContents t) {
      return new McpSchema.TextResourceContents(
          t.uri(), t.mimeType(), t.text(), keysAsText(t._meta()));
    }
    if (r instanceof BlobResourceContents b) {
      return new McpSchema.BlobResourceContents(
          b.uri(), b.mimeType(), b.blob(), keysAsText(b._meta()));
    }
    throw new IllegalArgumentException(
        "a gated tool's embedded resource cannot hold "
            + (r == null ? "null" : r.getClass().getSimpleName())
            + " contents: gate-quarkus stores text and blob resource contents");
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
    if (c instanceof McpSchema.EmbeddedResource r) {
      return new EmbeddedResource(toResponse(r.resource()), metaKeys(r.meta()), null);
    }
    throw new IllegalArgumentException(
        "a stored result holds " + c.type() + " content, which gate-quarkus does not replay");
  }

  private static ResourceContents toResponse(McpSchema.ResourceContents r) {
    if (r instanceof McpSchema.TextResourceContents t) {
      return new TextResourceContents(t.uri(), t.text(), t.mimeType(), metaKeys(t.meta()));
    }
    if (r instanceof McpSchema.BlobResourceContents b) {
      return new BlobResourceContents(b.uri(), b.blob(), b.mimeType(), metaKeys(b.meta()));
    }
    throw new IllegalArgumentException(
        "a stored result holds an embedded resource of "
            + (r == null ? "no" : r.getClass().getSimpleName())
            + " contents, which gate-quarkus does not replay");
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
