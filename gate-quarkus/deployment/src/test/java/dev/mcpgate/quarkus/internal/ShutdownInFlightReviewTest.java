package dev.mcpgate.quarkus.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.core.ClaimId;
import dev.mcpgate.core.spi.ClaimRecord;
import dev.mcpgate.quarkus.deployment.review.LongTools;
import dev.mcpgate.quarkus.deployment.review.ReviewTools;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import io.quarkus.test.QuarkusUnitTest;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.eclipse.microprofile.config.ConfigProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Review (medium-low): GateBeans.stop, the ShutdownEvent observer, closes the gate (its lease
 * renewals) at once, with gated calls still running: it neither waits for them nor refuses new ones
 * first. Quarkus fires ShutdownEvent with requests in flight (no quarkus.shutdown.timeout by
 * default; over stdio nothing tracks them), and the worker thread goes on running the tool. From
 * then on the running attempt's lease is not renewed: after one lease (5 s by default) a retry on
 * another replica takes the key over and runs the effect again while the first still runs: a live
 * action taken over, which the contract rules out. (With mcpgate.store=redis, stop also closes the
 * store under the call, so its completion cannot be stored either.) Expected: stop drains (waits,
 * bounded, for the calls in flight, renewing their leases) before closing the renewals, and refuses
 * new gated calls meanwhile. (Changed with the fix: stop runs on a thread of its own, as Quarkus'
 * shutdown does, since it now returns only once the export ended.)
 */
class ShutdownInFlightReviewTest {

  @RegisterExtension
  static final QuarkusUnitTest APP =
      new QuarkusUnitTest()
          .withApplicationRoot(
              jar -> jar.addClasses(LongTools.class, ReviewTools.class, ReviewTools.Payment.class))
          .overrideConfigKey("quarkus.devservices.enabled", "false")
          .overrideConfigKey("quarkus.http.test-port", "0")
          .overrideConfigKey("mcpgate.store", "memory")
          .overrideConfigKey("mcpgate.tenant.constant", "review");

  @Inject GateBeans beans;

  private static McpSyncClient client(int port) {
    McpSyncClient client =
        McpClient.sync(
                HttpClientStreamableHttpTransport.builder("http://127.0.0.1:" + port)
                    .endpoint("/mcp")
                    .build())
            .requestTimeout(Duration.ofSeconds(30))
            .build();
    client.initialize();
    return client;
  }

  @Test
  void aCallInFlightKeepsItsLeaseWhileTheApplicationStops() throws Exception {
    int port = ConfigProvider.getConfig().getValue("quarkus.http.test-port", Integer.class);
    McpSyncClient client = client(port);
    McpSyncClient late = client(port);
    String key = UUID.randomUUID().toString();
    String report = UUID.randomUUID().toString();
    CallToolRequest export =
        new CallToolRequest("export", Map.of("report", report, "idempotency_key", key));
    ExecutorService pool = Executors.newFixedThreadPool(2);
    try {
      Future<CallToolResult> first = pool.submit(() -> client.callTool(export));
      Thread.sleep(1000); // the export runs (6 s; lease 2 s)
      // what the ShutdownEvent does, on a thread of its own as Quarkus' shutdown runs it
      // (GateBeans.stop; reflection: the test's class loader differs)
      java.lang.reflect.Method stop =
          GateBeans.class.getDeclaredMethod("stop", io.quarkus.runtime.ShutdownEvent.class);
      stop.setAccessible(true);
      Future<Object> stopping =
          pool.submit(() -> stop.invoke(beans, new io.quarkus.runtime.ShutdownEvent()));
      Thread.sleep(3000); // more than a lease

      ClaimRecord row =
          beans.store().find(new ClaimId("constant:review", "export", key)).orElseThrow();
      assertThat(first.isDone()).as("the export still runs").isFalse();
      assertThat(stopping.isDone()).as("the gate waits for it before closing").isFalse();
      assertThat(row.leaseExpiresAt())
          .as("the running export's lease, at %s", beans.store().now())
          .isAfter(beans.store().now());

      // a gated call that arrives while the application stops is refused, and does not run
      String other = UUID.randomUUID().toString();
      CallToolResult refused =
          late.callTool(
              new CallToolRequest(
                  "export",
                  Map.of("report", other, "idempotency_key", UUID.randomUUID().toString())));
      assertThat(refused.isError()).as("%s", refused).isTrue();
      assertThat(refused.structuredContent())
          .asString()
          .contains("idempotency_store_unavailable")
          .contains("executed=no");
      assertThat(ReviewTools.runs(other)).isZero();

      assertThat(first.get().isError()).as("%s", first.get()).isFalse();
      stopping.get(); // returns once the export ended, its result stored
      assertThat(
              beans
                  .store()
                  .find(new ClaimId("constant:review", "export", key))
                  .orElseThrow()
                  .state())
          .isEqualTo(dev.mcpgate.core.spi.ClaimState.COMPLETED);
      assertThat(ReviewTools.runs(report)).isEqualTo(1);
    } finally {
      pool.shutdownNow();
      client.closeGracefully();
      late.closeGracefully();
    }
  }
}
