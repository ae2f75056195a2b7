package dev.mcpgate.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;

/** A line a caller can cause on every call is logged at most once a period per cause, counted. */
class RateLimitedLogTest {
  /** The lines logged, as "level format args". */
  private final List<String> lines = new ArrayList<>();

  private final Logger recorder =
      (Logger)
          Proxy.newProxyInstance(
              Logger.class.getClassLoader(),
              new Class<?>[] {Logger.class},
              (proxy, method, args) -> {
                String name = method.getName();
                if (name.startsWith("is") && name.endsWith("Enabled")
                    || name.equals("isEnabledForLevel")) {
                  return true;
                }
                if (List.of("error", "warn", "info", "debug", "trace").contains(name)) {
                  lines.add(name + " " + args[0] + " " + Arrays.deepToString((Object[]) args[1]));
                }
                return null;
              });

  private final AtomicLong now = new AtomicLong(42);
  private final RateLimitedLog log = new RateLimitedLog(recorder, Duration.ofMinutes(1), now::get);

  @Test
  void oneLinePerCauseAPeriodAndTheNextSaysHowManyWereHeldBack() {
    for (int i = 0; i < 1000; i++) {
      log.error("tenant_invalid", "invalid tenant for tool {}", "refund");
    }
    assertThat(lines).containsExactly("error invalid tenant for tool {} [refund]");

    now.addAndGet(Duration.ofSeconds(59).toNanos());
    assertThat(log.error("tenant_invalid", "invalid tenant for tool {}", "refund")).isFalse();
    assertThat(lines).hasSize(1);

    now.addAndGet(Duration.ofSeconds(1).toNanos());
    assertThat(log.error("tenant_invalid", "invalid tenant for tool {}", "refund")).isTrue();
    assertThat(lines)
        .last()
        .isEqualTo(
            "error invalid tenant for tool {} [and {} more like it since the last one]"
                + " [refund, 1000]");
  }

  @Test
  void eachCauseHasItsOwnPeriod() {
    assertThat(log.warn("header_repeated", "repeated header")).isTrue();
    assertThat(log.warn("no_tenant", "no tenant")).isTrue();
    assertThat(log.warn("header_repeated", "repeated header")).isFalse();
    assertThat(lines).containsExactly("warn repeated header []", "warn no tenant []");
  }

  @Test
  void aThrowableStaysTheLastArgument() {
    IllegalStateException boom = new IllegalStateException("boom");
    log.error("resolver_failed", "resolver failed for {}", "refund", boom);
    log.error("resolver_failed", "resolver failed for {}", "refund", boom);
    now.addAndGet(Duration.ofMinutes(1).toNanos());
    log.error("resolver_failed", "resolver failed for {}", "refund", boom);
    assertThat(lines)
        .last()
        .asString()
        .endsWith("[refund, 1, java.lang.IllegalStateException: boom]");
  }

  @Test
  void causesPastTheBoundShareOnePeriod() {
    for (int i = 0; i < RateLimitedLog.MAX_CAUSES + 10; i++) {
      log.warn("cause-" + i, "line {}", i);
    }
    assertThat(lines).hasSize(RateLimitedLog.MAX_CAUSES + 1);
  }
}
