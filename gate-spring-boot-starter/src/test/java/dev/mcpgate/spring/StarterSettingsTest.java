package dev.mcpgate.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.mcpgate.core.GatePolicy;
import dev.mcpgate.core.GateResult;
import dev.mcpgate.core.IdempotencyGate;
import dev.mcpgate.core.ResultMapper;
import dev.mcpgate.core.ToolCall;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;
import org.springframework.context.ConfigurableApplicationContext;

/** The properties as one more surface of the one settings type, resolved where the others are. */
class StarterSettingsTest {

  @Test
  void unsetPropertiesAreTheDefaultPolicy() {
    Binder none = new Binder(new MapConfigurationPropertySource());
    assertThat(McpGateProperties.policy(none)).isEqualTo(GatePolicy.defaults());
  }

  @Test
  void everySettingPropertyReachesTheGatesPolicy() throws Exception {
    try (ConfigurableApplicationContext app =
        SpringBootStarterTest.server(
                "mcpgate.retention=3h",
                "mcpgate.lease=20s",
                "mcpgate.lease-renewal=4s",
                "mcpgate.in-flight-wait=1s",
                "mcpgate.failure-mode=store",
                "mcpgate.max-result-bytes=4096",
                "mcpgate.ignored-arguments=trace_id,request_id",
                "mcpgate.unknown-fence=30m")
            .run()) {
      GatePolicy policy = app.getBean(IdempotencyGate.class).policy();
      assertThat(policy.retention()).isEqualTo(Duration.ofHours(3));
      assertThat(policy.lease()).isEqualTo(Duration.ofSeconds(20));
      assertThat(policy.leaseRenewal()).isEqualTo(Duration.ofSeconds(4));
      assertThat(policy.inFlightWait()).isEqualTo(Duration.ofSeconds(1));
      assertThat(policy.failureMode()).isEqualTo(GatePolicy.FailureMode.STORE);
      assertThat(policy.maxResultBytes()).isEqualTo(4096);
      assertThat(policy.ignoredArguments()).containsExactlyInAnyOrder("trace_id", "request_id");
      assertThat(policy.unknownFence()).isEqualTo(Duration.ofMinutes(30));
    }
  }

  @Test
  void aPropertyOutOfRangeOrTwoThatDisagreeStopTheStartupNamingThem() {
    assertThatThrownBy(() -> SpringBootStarterTest.server("mcpgate.max-result-bytes=0").run())
        .hasStackTraceContaining("mcpgate.* property out of range")
        .hasStackTraceContaining("maxResultBytes must be at least 1, was 0");
    assertThatThrownBy(
            () -> SpringBootStarterTest.server("mcpgate.retention=10s", "mcpgate.lease=1m").run())
        .hasStackTraceContaining("mcpgate.* properties disagree")
        .hasStackTraceContaining("lease (PT1M) must not be longer than retention (PT10S)");
  }

  @Test
  void closingTheContextWaitsForARunningCallAndTheDrainTimeoutIsBound() throws Exception {
    assertThatThrownBy(
            () -> SpringBootStarterTest.server("mcpgate.shutdown.drain-timeout=-1s").run())
        .hasStackTraceContaining("drainTimeout must not be negative, was PT-1S");
    ConfigurableApplicationContext app = SpringBootStarterTest.server().run();
    CountDownLatch started = new CountDownLatch(1);
    CountDownLatch finish = new CountDownLatch(1);
    CompletableFuture<GateResult<String>> call =
        CompletableFuture.supplyAsync(
            () ->
                app.getBean(IdempotencyGate.class)
                    .execute(
                        // a new key: the claims table outlives the run, and a replay runs nothing
                        ToolCall.of("constant:t", "drain", UUID.randomUUID().toString(), Map.of()),
                        ResultMapper.utf8(),
                        ctx -> {
                          started.countDown();
                          finish.await();
                          return "done";
                        }));
    assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();
    CompletableFuture<Void> closing = CompletableFuture.runAsync(app::close);
    Thread.sleep(500);
    assertThat(closing).as("the context waits for the running call").isNotDone();
    finish.countDown();
    closing.get(10, TimeUnit.SECONDS);
    assertThat(call.get(10, TimeUnit.SECONDS)).isInstanceOf(GateResult.Executed.class);
  }

  @Test
  void theOldNameOfCreateSchemaIfMissingStopsTheStartupNamingTheNewOne() {
    assertThatThrownBy(() -> SpringBootStarterTest.server("mcpgate.create-schema=true").run())
        .hasStackTraceContaining("mcpgate.create-schema was renamed")
        .hasStackTraceContaining("mcpgate.create-schema-if-missing");
  }
}
