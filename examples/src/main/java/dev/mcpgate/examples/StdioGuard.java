package dev.mcpgate.examples;

import io.modelcontextprotocol.json.McpJsonMapper;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Stands between stdin and the SDK's stdio transport: a line that is not a JSON-RPC message (not
 * JSON, NaN, a number of over 1000 digits, nesting over 1000, a message over 16 MiB, not an object)
 * is answered with a JSON-RPC error ({@code -32700} parse error, {@code -32600} invalid request)
 * and dropped; every other line goes on to the SDK. One bad line thus costs one error reply, not
 * the session, and the end of stdin still reaches the SDK.
 */
final class StdioGuard {
  /** The longest message accepted, in bytes. */
  static final int MAX_MESSAGE_BYTES = 16 * 1024 * 1024;

  private final McpJsonMapper json;
  private final PrintStream out;

  StdioGuard(McpJsonMapper json, PrintStream out) {
    this.json = json;
    this.out = out;
  }

  /** Copies good lines from {@code in} to {@code sdk} until {@code in} ends; then closes sdk. */
  void forward(InputStream in, OutputStream sdk) throws IOException {
    try (sdk) {
      ByteArrayOutputStream line = new ByteArrayOutputStream();
      boolean tooLong = false;
      byte[] buffer = new byte[64 * 1024];
      int n;
      while ((n = in.read(buffer)) >= 0) {
        for (int i = 0; i < n; i++) {
          byte b = buffer[i];
          if (b == '\n') {
            if (tooLong) {
              reply(-32700, "Parse error: the message is over " + MAX_MESSAGE_BYTES + " bytes");
            } else {
              pass(line.toByteArray(), sdk);
            }
            line.reset();
            tooLong = false;
          } else if (!tooLong) {
            line.write(b);
            if (line.size() > MAX_MESSAGE_BYTES) {
              tooLong = true;
              line.reset();
            }
          }
        }
      }
      if (line.size() > 0 && !tooLong) {
        pass(line.toByteArray(), sdk);
      }
    }
  }

  private void pass(byte[] bytes, OutputStream sdk) throws IOException {
    String text = new String(bytes, StandardCharsets.UTF_8).strip();
    if (text.isEmpty()) {
      return;
    }
    Object message;
    try {
      message = json.readValue(text, Object.class);
    } catch (IOException | RuntimeException e) {
      reply(-32700, "Parse error: " + firstLine(e.getMessage()));
      return;
    }
    if (!(message instanceof Map<?, ?>)) {
      reply(-32600, "Invalid Request: a JSON-RPC message is a JSON object");
      return;
    }
    sdk.write(bytes);
    sdk.write('\n');
    sdk.flush();
  }

  private void reply(int code, String message) throws IOException {
    Map<String, Object> response = new LinkedHashMap<>();
    response.put("jsonrpc", "2.0");
    response.put("id", null); // the request's id could not be read
    response.put("error", Map.of("code", code, "message", message));
    String error = json.writeValueAsString(response);
    byte[] bytes = (error + "\n").getBytes(StandardCharsets.UTF_8);
    synchronized (out) {
      out.write(bytes);
      out.flush();
    }
  }

  private static String firstLine(String message) {
    if (message == null) {
      return "not JSON";
    }
    int end = message.indexOf('\n');
    String first = end < 0 ? message : message.substring(0, end);
    return first.length() > 200 ? first.substring(0, 200) + "..." : first;
  }
}
