package dev.mcpgate.dynamodb.review;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ConcurrentHashMap;
import software.amazon.awssdk.http.AbortableInputStream;
import software.amazon.awssdk.http.ExecutableHttpRequest;
import software.amazon.awssdk.http.HttpExecuteRequest;
import software.amazon.awssdk.http.HttpExecuteResponse;
import software.amazon.awssdk.http.SdkHttpClient;
import software.amazon.awssdk.http.SdkHttpResponse;
import software.amazon.awssdk.http.apache.ApacheHttpClient;

/**
 * An SDK HTTP client that answers the next request of an armed operation with a 500
 * (InternalServerError) without sending it: the server never applied it. Before answering it runs
 * what the test says happens meanwhile (another process's writes). The SDK's retry policy then
 * sends the request again, for real.
 */
final class ServerErrorBeforeApplyHttpClient implements SdkHttpClient {
  private final SdkHttpClient delegate = ApacheHttpClient.create();
  private final ConcurrentHashMap<String, Runnable> armed = new ConcurrentHashMap<>();
  private final ConcurrentHashMap<String, Runnable> armedAfter = new ConcurrentHashMap<>();

  /** The next request of {@code operation} (e.g. "DeleteItem") is not sent: 500, after this. */
  void failNextBeforeApply(String operation, Runnable meanwhile) {
    armed.put(operation, meanwhile);
  }

  /**
   * The next request of {@code operation} is sent and applied, then this runs, and the answer is
   * replaced by a 500 (the server applied it, then failed its answer).
   */
  void failNextAfterApply(String operation, Runnable meanwhile) {
    armedAfter.put(operation, meanwhile);
  }

  @Override
  public ExecutableHttpRequest prepareRequest(HttpExecuteRequest request) {
    String target = request.httpRequest().firstMatchingHeader("X-Amz-Target").orElse("");
    String operation = target.substring(target.indexOf('.') + 1);
    Runnable after = armedAfter.remove(operation);
    Runnable meanwhile = after != null ? null : armed.remove(operation);
    if (meanwhile == null && after == null) {
      return delegate.prepareRequest(request);
    }
    ExecutableHttpRequest applied = after != null ? delegate.prepareRequest(request) : null;
    return new ExecutableHttpRequest() {
      @Override
      public HttpExecuteResponse call() throws java.io.IOException {
        if (applied != null) {
          HttpExecuteResponse answer = applied.call();
          if (answer.responseBody().isPresent()) {
            answer.responseBody().get().close();
          }
          after.run();
        } else {
          meanwhile.run();
        }
        byte[] body =
            ("{\"__type\":\"com.amazonaws.dynamodb.v20120810#InternalServerError\","
                    + "\"message\":\"injected: not applied\"}")
                .getBytes(StandardCharsets.UTF_8);
        return HttpExecuteResponse.builder()
            .response(
                SdkHttpResponse.builder()
                    .statusCode(500)
                    .putHeader("Content-Type", "application/x-amz-json-1.0")
                    .putHeader("Content-Length", String.valueOf(body.length))
                    .build())
            .responseBody(AbortableInputStream.create(new ByteArrayInputStream(body)))
            .build();
      }

      @Override
      public void abort() {}
    };
  }

  @Override
  public String clientName() {
    return "server-error-before-apply";
  }

  @Override
  public void close() {
    delegate.close();
  }
}
