package dev.mcpgate.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * {@code mcpgate.store=redis}: the starter's Redis store on a real Redis and a real Redis Cluster
 * (the servers {@code MCPGATE_TEST_REDIS_URL} and {@code MCPGATE_TEST_REDIS_CLUSTER_URL} name;
 * {@code .ci/run} sets both). Without them the tests are skipped, or fail when {@code
 * MCPGATE_TEST_REQUIRE_ALL=true}. Never a mock.
 */
class StarterRedisTest {

  @Test
  void aRetryOnTheRedisStoreReplaysAndEightRacersRunTheRefundOnce() throws Exception {
    String url = required("MCPGATE_TEST_REDIS_URL");
    String prefix = "mcpgate-boot-" + UUID.randomUUID() + ":";
    try (ConfigurableApplicationContext app =
        SpringBootStarterTest.server(
                "mcpgate.store=redis",
                "mcpgate.redis.url=" + url,
                "mcpgate.redis.key-prefix=" + prefix)
            .run()) {
      assertThat(app.getBean(dev.mcpgate.core.spi.IdempotencyStore.class))
          .isInstanceOf(dev.mcpgate.redis.RedisIdempotencyStore.class);
      racersRunOnce(app);
      RedisClient direct = RedisClient.create(url);
      try (StatefulRedisConnection<String, String> c = direct.connect()) {
        assertThat(c.sync().keys(prefix + "*")).as("claims under the prefix").isNotEmpty();
      } finally {
        direct.shutdown();
      }
    }
  }

  @Test
  void aRedisClusterGivenBySeedNodesGatesToo() throws Exception {
    String seeds = required("MCPGATE_TEST_REDIS_CLUSTER_URL");
    try (ConfigurableApplicationContext app =
        SpringBootStarterTest.server(
                "mcpgate.store=redis",
                "mcpgate.redis.cluster=true",
                "mcpgate.redis.url=" + seeds,
                "mcpgate.redis.key-prefix=mcpgate-boot-" + UUID.randomUUID() + ":")
            .run()) {
      racersRunOnce(app);
    }
  }

  @Test
  void aMisconfiguredRedisStoreStopsTheStartupNamingWhatIsMissing() {
    assertThatThrownBy(() -> SpringBootStarterTest.server("mcpgate.store=redis").run())
        .hasStackTraceContaining("mcpgate.store=redis needs")
        .hasStackTraceContaining("mcpgate.redis.url");
    assertThatThrownBy(
            () ->
                SpringBootStarterTest.server(
                        "mcpgate.store=redis",
                        "mcpgate.redis.url=redis://127.0.0.1:1,redis://127.0.0.1:2")
                    .run())
        .hasStackTraceContaining("mcpgate.redis.url names 2 servers")
        .hasStackTraceContaining("mcpgate.redis.cluster=true");
    assertThatThrownBy(
            () ->
                SpringBootStarterTest.server(
                        "mcpgate.store=redis", "mcpgate.redis.url=http://127.0.0.1:6379")
                    .run())
        .hasStackTraceContaining("mcpgate.redis.url: http://127.0.0.1:6379 is not a Redis URI");
    assertThatThrownBy(
            () ->
                SpringBootStarterTest.server(
                        "mcpgate.store=redis", "mcpgate.redis.url=redis://127.0.0.1:1")
                    .run())
        .hasStackTraceContaining("could not reach its Redis store at startup");
  }

  @Test
  void aRedisUrlThatStopsTheStartupIsNamedWithoutItsPassword() {
    String secret = "hunter2-s3cret";
    Map<String, String> shapes =
        Map.of(
            // two servers without mcpgate.redis.cluster=true
            "redis://:" + secret + "@127.0.0.1:7101,redis://:" + secret + "@127.0.0.1:7102",
            "mcpgate.redis.url names 2 servers (redis://***@127.0.0.1:7101,"
                + "redis://***@127.0.0.1:7102)",
            // not a Redis URI; Lettuce's own message repeats the URL
            "redis://app:" + secret + "@[::1:6379",
            "mcpgate.redis.url: redis://***@[::1:6379 is not a Redis URI (",
            "http://:" + secret + "@127.0.0.1:6379",
            "mcpgate.redis.url: http://***@127.0.0.1:6379 is not a Redis URI",
            // a password with a slash in it, which Lettuce reads as a port
            "redis://:" + secret + "/x@127.0.0.1:7101",
            "mcpgate.redis.url: redis://***@127.0.0.1:7101 is not a Redis URI (",
            // nothing listens there
            "redis://:" + secret + "@127.0.0.1:1",
            "could not reach its Redis store at startup");
    shapes.forEach(
        (url, named) ->
            assertThatThrownBy(
                    () ->
                        SpringBootStarterTest.server(
                                "mcpgate.store=redis", "mcpgate.redis.url=" + url)
                            .run()
                            .close())
                .as(url)
                .hasStackTraceContaining(named)
                .satisfies(
                    e -> {
                      java.io.StringWriter trace = new java.io.StringWriter();
                      e.printStackTrace(new java.io.PrintWriter(trace));
                      assertThat(trace.toString())
                          .as("the failure of %s, every cause", url)
                          .doesNotContain(secret);
                    }));
  }

  /** Eight clients send the same refund with one key at once; it runs once, all get its result. */
  private static void racersRunOnce(ConfigurableApplicationContext app) throws Exception {
    String key = "boot-redis-" + UUID.randomUUID();
    int before = RefundServer.RefundTools.REFUNDS.get();
    List<McpSyncClient> clients =
        java.util.stream.IntStream.range(0, 8)
            .mapToObj(i -> SpringBootStarterTest.client(app, "acme"))
            .toList();
    ExecutorService pool = Executors.newFixedThreadPool(8);
    try {
      List<Future<CallToolResult>> calls =
          clients.stream()
              .map(
                  c ->
                      pool.submit(
                          () ->
                              c.callTool(
                                  new CallToolRequest(
                                      "refund_order",
                                      Map.of(
                                          "orderId",
                                          "ord_redis",
                                          "amountCents",
                                          700,
                                          "idempotency_key",
                                          key)))))
              .toList();
      String first = null;
      for (Future<CallToolResult> f : calls) {
        CallToolResult r = f.get();
        String text = ((McpSchema.TextContent) r.content().get(0)).text();
        if (r.isError() == Boolean.TRUE) {
          // a racer that outwaited the in-flight wait is told to retry; it is not a second run
          assertThat(text).contains("in progress");
          continue;
        }
        if (first == null) {
          first = text;
        }
        assertThat(text).isEqualTo(first).contains("700 cents for ord_redis");
      }
      assertThat(first).as("some racer got the refund's result").isNotNull();
    } finally {
      pool.shutdownNow();
      clients.forEach(McpSyncClient::closeGracefully);
    }
    assertThat(RefundServer.RefundTools.REFUNDS.get()).as("refunds run").isEqualTo(before + 1);
  }

  private static String required(String variable) {
    String value = System.getenv(variable);
    if (value == null || value.isBlank()) {
      String message = "the starter's Redis tests need a real Redis: " + variable + " is not set";
      // said on the console as every backend says it, never a silent skip
      System.err.println("[mcpgate tests] Spring Boot starter on Redis: SKIPPED, " + message);
      if ("true".equalsIgnoreCase(System.getenv("MCPGATE_TEST_REQUIRE_ALL"))) {
        Assertions.fail(
            message + " (MCPGATE_TEST_REQUIRE_ALL=true: a skipped backend is a failure)");
      }
      Assumptions.abort(message);
    }
    return value;
  }
}
