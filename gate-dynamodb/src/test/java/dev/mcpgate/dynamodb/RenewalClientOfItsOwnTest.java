package dev.mcpgate.dynamodb;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.core.GatePolicy;
import dev.mcpgate.core.GateResult;
import dev.mcpgate.core.IdempotencyGate;
import dev.mcpgate.core.ResultMapper;
import dev.mcpgate.core.ToolCall;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.http.SdkHttpRequest;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.ScanRequest;

/**
 * The remedy docs/stores.md gives for renewals that must never wait behind the application's
 * requests: a renewal client of their own ({@code renewalClient}), on its own HTTP client. By
 * default the store renews through the client it was given, so through that client's connection
 * pool (the Spring starter's store is built on the application's {@code DynamoDbClient} bean).
 */
class RenewalClientOfItsOwnTest {
  private static final String TABLE = "mcpgate_renewal_client_test";

  /**
   * The application's 50 requests that hang (its own table's Scans, on a port that never answers)
   * hold every connection of the main client's pool (the SDK's default, 50) while a gated action
   * runs four times longer than its lease: renewals through a client of their own still reach
   * DynamoDB, and another replica's retries are refused, never run. (With the store renewing
   * through the main client, as it does by default, the lease ran out and a retry ran the action
   * again: a review's finding, kept as the reason for the advice.)
   */
  @Test
  void withARenewalClientOfItsOwnTheApplicationsRequestsCannotCostAnActionItsLease()
      throws Exception {
    ExecutorService threads = Executors.newCachedThreadPool();
    List<Socket> held = new CopyOnWriteArrayList<>();
    try (ServerSocket blackHole = new ServerSocket()) {
      blackHole.bind(new InetSocketAddress("127.0.0.1", 0));
      threads.submit(
          () -> {
            while (!blackHole.isClosed()) {
              try {
                held.add(blackHole.accept()); // accepts, never answers
              } catch (IOException closed) {
                return;
              }
            }
          });
      int hole = blackHole.getLocalPort();
      ExecutionInterceptor appScansHang =
          new ExecutionInterceptor() {
            @Override
            public SdkHttpRequest modifyHttpRequest(
                Context.ModifyHttpRequest context, ExecutionAttributes attributes) {
              return context.request() instanceof ScanRequest scan
                      && "app_orders".equals(scan.tableName())
                  ? context.httpRequest().toBuilder().port(hole).build()
                  : context.httpRequest();
            }
          };
      try (DynamoDbClient appBean = TestDynamo.client(appScansHang);
          DynamoDbClient renewals = TestDynamo.client();
          DynamoDbClient other = TestDynamo.client();
          DynamoDbIdempotencyStore storeA = store(appBean, renewals);
          DynamoDbIdempotencyStore storeB = store(other, other)) {
        GatePolicy policy =
            GatePolicy.builder()
                .lease(Duration.ofSeconds(2))
                .leaseRenewal(Duration.ofMillis(500))
                .inFlightWait(Duration.ZERO)
                .build();
        IdempotencyGate gateA = IdempotencyGate.builder(storeA).policy(policy).build();
        IdempotencyGate gateB = IdempotencyGate.builder(storeB).policy(policy).build();
        ToolCall call =
            ToolCall.of("pool-" + UUID.randomUUID(), "refund_order", "k", Map.of("order", "o1"));
        AtomicInteger effects = new AtomicInteger();
        Future<GateResult<String>> a =
            threads.submit(
                () ->
                    gateA.execute(
                        call,
                        ResultMapper.utf8(),
                        ctx -> {
                          effects.incrementAndGet();
                          Thread.sleep(8_000);
                          return "refunded by A";
                        }));
        while (effects.get() == 0) {
          Thread.sleep(10);
        }
        for (int i = 0; i < 50; i++) {
          threads.submit(() -> appBean.scan(s -> s.tableName("app_orders")));
        }
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(7);
        int retries = 0;
        while (System.nanoTime() < end && !a.isDone()) {
          GateResult<String> b =
              gateB.execute(
                  call,
                  ResultMapper.utf8(),
                  ctx -> {
                    effects.incrementAndGet();
                    return "refunded by B";
                  });
          assertThat(b).as("retry %d on B", retries).isInstanceOf(GateResult.Refused.class);
          retries++;
          Thread.sleep(200);
        }

        blackHole.close(); // the application's requests fail, and their retries are refused:
        for (Socket s : held) {
          s.close(); // A's completion gets a connection
        }
        assertThat(a.get(30, TimeUnit.SECONDS)).isInstanceOf(GateResult.Executed.class);
        assertThat(effects).as("the refund ran once").hasValue(1);
        assertThat(retries).as("retries while A ran").isGreaterThan(10);
      }
    } finally {
      for (Socket s : held) {
        s.close();
      }
      threads.shutdownNow();
    }
  }

  private static DynamoDbIdempotencyStore store(DynamoDbClient client, DynamoDbClient renewals) {
    return DynamoDbIdempotencyStore.builder(client)
        .tableName(TABLE)
        .renewalClient(renewals)
        .createSchemaIfMissing(true)
        .build();
  }
}
