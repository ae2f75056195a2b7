package dev.mcpgate.quarkus.nojta;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.mcp.Idempotent;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import io.quarkiverse.mcp.server.Tool;
import io.quarkiverse.mcp.server.ToolArg;
import io.quarkiverse.mcp.server.ToolResponse;
import io.quarkus.test.QuarkusUnitTest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.eclipse.microprofile.config.ConfigProvider;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Review AB: the abandoned-attempt fix counts attempts in {@code TransactionEnd}, which is
 * registered only where the application has a transaction manager. Without one (claims in Redis or
 * DynamoDB, the effect a call to another system), a gated tool still running on the time limiter's
 * thread when the limiter answers its fallback error is read as "did not run": the key is freed and
 * the retry charges again while the first run charges too. Fixed: {@code AttemptWatch}, which
 * counts the attempts, is registered with or without a transaction manager.
 */
class AbandonedWithoutJtaReviewTest {

  @RegisterExtension
  static final QuarkusUnitTest APP =
      new QuarkusUnitTest()
          .withApplicationRoot(
              jar ->
                  jar.addClasses(
                      Slow.class, AbandonWithoutJta.class, AbandonWithoutJtaInterceptor.class))
          .overrideConfigKey("quarkus.devservices.enabled", "false")
          .overrideConfigKey("quarkus.http.test-port", "0")
          .overrideConfigKey("mcpgate.store", "memory")
          .overrideConfigKey("mcpgate.tenant.constant", "no-jta-ab");

  static final Map<String, AtomicInteger> RUNS = new ConcurrentHashMap<>();

  /** A gated tool whose charge (another system) happens after a slow step. */
  public static class Slow {
    @Tool(
        description = "Charges an account.",
        annotations = @Tool.Annotations(idempotentHint = true))
    @Idempotent
    @AbandonWithoutJta
    public ToolResponse chargeSlowly(
        @ToolArg(name = "account") String account,
        @ToolArg(name = "idempotency_key", required = false) String idempotencyKey)
        throws InterruptedException {
      Thread.sleep(600);
      RUNS.computeIfAbsent(account, k -> new AtomicInteger()).incrementAndGet();
      return ToolResponse.success("charged " + account);
    }
  }

  private static McpSyncClient client;

  static synchronized McpSyncClient client() {
    if (client == null) {
      int port = ConfigProvider.getConfig().getValue("quarkus.http.test-port", Integer.class);
      client =
          McpClient.sync(
                  HttpClientStreamableHttpTransport.builder("http://127.0.0.1:" + port)
                      .endpoint("/mcp")
                      .build())
              .requestTimeout(Duration.ofSeconds(30))
              .build();
      client.initialize();
    }
    return client;
  }

  @AfterAll
  static synchronized void close() {
    if (client != null) {
      client.closeGracefully();
      client = null;
    }
  }

  @Test
  void anAbandonedRunWithoutATransactionManagerDoesNotFreeTheKey() throws Exception {
    String account = UUID.randomUUID().toString();
    String key = UUID.randomUUID().toString();
    List<String> answers = new ArrayList<>();
    for (int i = 0; i < 2; i++) {
      try {
        CallToolResult r =
            client()
                .callTool(
                    new CallToolRequest(
                        "chargeSlowly",
                        Map.of("account", account),
                        Map.of("dev.mcpgate/idempotency-key", key)));
        answers.add("isError=" + r.isError() + " " + r.content());
      } catch (RuntimeException e) {
        answers.add("error " + e.getMessage());
      }
    }
    Thread.sleep(1500); // both abandoned runs have finished
    AtomicInteger runs = RUNS.get(account);
    assertThat(runs == null ? 0 : runs.get()).as("charges; answers %s", answers).isEqualTo(1);
  }
}
