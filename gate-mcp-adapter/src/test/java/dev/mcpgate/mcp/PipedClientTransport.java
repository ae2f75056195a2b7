package dev.mcpgate.mcp;

import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.json.TypeRef;
import io.modelcontextprotocol.spec.McpClientTransport;
import io.modelcontextprotocol.spec.McpSchema;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.function.Function;
import reactor.core.publisher.Mono;

/** An MCP client transport speaking stdio's newline-delimited JSON-RPC over in-process pipes. */
final class PipedClientTransport implements McpClientTransport {
  private final McpJsonMapper json;
  private final InputStream fromServer;
  private final OutputStream toServer;
  private volatile boolean closing;

  PipedClientTransport(McpJsonMapper json, InputStream fromServer, OutputStream toServer) {
    this.json = json;
    this.fromServer = fromServer;
    this.toServer = toServer;
  }

  @Override
  public Mono<Void> connect(
      Function<Mono<McpSchema.JSONRPCMessage>, Mono<McpSchema.JSONRPCMessage>> handler) {
    Thread reader =
        new Thread(
            () -> {
              try (BufferedReader lines =
                  new BufferedReader(new InputStreamReader(fromServer, StandardCharsets.UTF_8))) {
                String line;
                while (!closing && (line = lines.readLine()) != null) {
                  McpSchema.JSONRPCMessage message =
                      McpSchema.deserializeJsonRpcMessage(json, line);
                  handler.apply(Mono.just(message)).subscribe();
                }
              } catch (IOException e) {
                if (!closing) {
                  throw new IllegalStateException("stdio client read failed", e);
                }
              }
            },
            "piped-mcp-client");
    reader.setDaemon(true);
    reader.start();
    return Mono.empty();
  }

  @Override
  public Mono<Void> sendMessage(McpSchema.JSONRPCMessage message) {
    return Mono.fromRunnable(
        () -> {
          try {
            byte[] line =
                (json.writeValueAsString(message) + "\n").getBytes(StandardCharsets.UTF_8);
            synchronized (toServer) {
              toServer.write(line);
              toServer.flush();
            }
          } catch (IOException e) {
            throw new IllegalStateException("stdio client write failed", e);
          }
        });
  }

  @Override
  public Mono<Void> closeGracefully() {
    return Mono.fromRunnable(
        () -> {
          closing = true;
          try {
            toServer.close();
          } catch (IOException ignored) {
            // already closed
          }
        });
  }

  @Override
  public <T> T unmarshalFrom(Object data, TypeRef<T> type) {
    return json.convertValue(data, type);
  }
}
