package dev.mcpgate.client;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A process between an MCP client and a stdio MCP server process that loses the server's answers to
 * the first N {@code tools/call} requests of each idempotency key: the server ran the call and
 * wrote its answer; the relay never passes it on. Everything else passes through, line by line.
 *
 * <pre>java dev.mcpgate.client.StdioRelay N server-command...</pre>
 */
public final class StdioRelay {
  private StdioRelay() {}

  /**
   * @param args the answers to lose per key, then the server's command line
   */
  public static void main(String[] args) throws Exception {
    int drops = Integer.parseInt(args[0]);
    List<String> command = Arrays.asList(args).subList(1, args.length);
    Process server =
        new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
    ObjectMapper json = new ObjectMapper();
    Map<String, String> keyOfRequest = new ConcurrentHashMap<>();
    Map<String, AtomicInteger> lost = new ConcurrentHashMap<>();
    PrintStream out = new PrintStream(System.out, false, StandardCharsets.UTF_8);
    Thread up =
        new Thread(
            () -> {
              try (BufferedReader in =
                      new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
                  OutputStream toServer = server.getOutputStream()) {
                String line;
                while ((line = in.readLine()) != null) {
                  JsonNode message = parse(json, line);
                  if (message != null && "tools/call".equals(message.path("method").asText())) {
                    JsonNode params = message.path("params");
                    JsonNode key = params.path("arguments").path("idempotency_key");
                    if (!key.isTextual()) {
                      key = params.path("_meta").path(IdempotentCalls.META_KEY);
                    }
                    if (key.isTextual()) {
                      keyOfRequest.put(message.path("id").toString(), key.asText());
                    }
                  }
                  toServer.write((line + "\n").getBytes(StandardCharsets.UTF_8));
                  toServer.flush();
                }
              } catch (IOException e) {
                System.err.println("relay: client side ended: " + e.getMessage());
              }
            },
            "relay-up");
    up.start();
    try (BufferedReader fromServer =
        new BufferedReader(
            new InputStreamReader(server.getInputStream(), StandardCharsets.UTF_8))) {
      String line;
      while ((line = fromServer.readLine()) != null) {
        JsonNode message = parse(json, line);
        String key =
            message == null || message.has("method")
                ? null
                : keyOfRequest.remove(message.path("id").toString());
        if (key != null
            && lost.computeIfAbsent(key, k -> new AtomicInteger()).incrementAndGet() <= drops) {
          System.err.println("relay: lost the answer to " + key);
          continue;
        }
        out.println(line);
        out.flush();
      }
    }
    System.exit(server.waitFor());
  }

  private static JsonNode parse(ObjectMapper json, String line) {
    try {
      return json.readTree(line);
    } catch (IOException notJson) {
      return null;
    }
  }
}
