package dev.mcpgate.dynamodb.review;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.ConnectException;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import software.amazon.awssdk.http.AbortableInputStream;
import software.amazon.awssdk.http.ExecutableHttpRequest;
import software.amazon.awssdk.http.HttpExecuteRequest;
import software.amazon.awssdk.http.HttpExecuteResponse;
import software.amazon.awssdk.http.SdkHttpClient;
import software.amazon.awssdk.http.SdkHttpResponse;
import software.amazon.awssdk.http.apache.ApacheHttpClient;

/**
 * An SDK HTTP client in front of the real server (dynalite) that does, per operation, what a script
 * says for each try: pass it, send it and lose the answer, refuse the connection, answer with a
 * throttling 400 without sending it, or hang until aborted. Once an operation's script is spent,
 * its default applies (pass unless set).
 */
final class ScriptedHttp implements SdkHttpClient {
  enum Fault {
    PASS,
    LAND_LOSE,
    REFUSE,
    THROTTLE,
    HANG
  }

  private final SdkHttpClient delegate = ApacheHttpClient.create();
  private final Map<String, ConcurrentLinkedQueue<Fault>> scripts = new ConcurrentHashMap<>();
  private final Map<String, Fault> defaults = new ConcurrentHashMap<>();
  private final Map<String, AtomicInteger> tries = new ConcurrentHashMap<>();
  final AtomicInteger landed = new AtomicInteger();

  ScriptedHttp script(String operation, Fault... faults) {
    scripts
        .computeIfAbsent(operation, o -> new ConcurrentLinkedQueue<>())
        .addAll(java.util.List.of(faults));
    return this;
  }

  ScriptedHttp otherwise(String operation, Fault fault) {
    defaults.put(operation, fault);
    return this;
  }

  int tries(String operation) {
    AtomicInteger n = tries.get(operation);
    return n == null ? 0 : n.get();
  }

  @Override
  public ExecutableHttpRequest prepareRequest(HttpExecuteRequest request) {
    String target = request.httpRequest().firstMatchingHeader("X-Amz-Target").orElse("");
    String operation = target.substring(target.indexOf('.') + 1);
    tries.computeIfAbsent(operation, o -> new AtomicInteger()).incrementAndGet();
    ConcurrentLinkedQueue<Fault> script = scripts.get(operation);
    Fault next = script == null ? null : script.poll();
    Fault fault = next != null ? next : defaults.getOrDefault(operation, Fault.PASS);
    if (fault == Fault.PASS) {
      return delegate.prepareRequest(request);
    }
    ExecutableHttpRequest real = fault == Fault.LAND_LOSE ? delegate.prepareRequest(request) : null;
    Thread[] caller = new Thread[1];
    return new ExecutableHttpRequest() {
      @Override
      public HttpExecuteResponse call() throws IOException {
        switch (fault) {
          case LAND_LOSE -> {
            HttpExecuteResponse answer = real.call();
            landed.incrementAndGet();
            if (answer.responseBody().isPresent()) {
              answer.responseBody().get().close();
            }
            throw new IOException("injected: the connection was cut before the answer");
          }
          case REFUSE -> throw new ConnectException("injected: connection refused");
          case THROTTLE -> {
            return error(
                400,
                "com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException",
                "injected: throttled");
          }
          case HANG -> {
            caller[0] = Thread.currentThread();
            try {
              Thread.sleep(60_000);
            } catch (InterruptedException e) {
              throw new InterruptedIOException("injected hang interrupted");
            }
            throw new IOException("injected hang ended");
          }
          default -> throw new IllegalStateException();
        }
      }

      @Override
      public void abort() {
        if (real != null) {
          real.abort();
        }
        Thread t = caller[0];
        if (t != null) {
          t.interrupt();
        }
      }
    };
  }

  private static HttpExecuteResponse error(int status, String type, String message) {
    byte[] body =
        ("{\"__type\":\"" + type + "\",\"message\":\"" + message + "\"}")
            .getBytes(StandardCharsets.UTF_8);
    return HttpExecuteResponse.builder()
        .response(
            SdkHttpResponse.builder()
                .statusCode(status)
                .putHeader("Content-Type", "application/x-amz-json-1.0")
                .putHeader("Content-Length", String.valueOf(body.length))
                .build())
        .responseBody(AbortableInputStream.create(new ByteArrayInputStream(body)))
        .build();
  }

  @Override
  public String clientName() {
    return "scripted";
  }

  @Override
  public void close() {
    delegate.close();
  }
}
