package dev.mcpgate.quarkus.deployment.review;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.mcp.Idempotent;
import io.quarkiverse.mcp.server.Tool;
import io.quarkiverse.mcp.server.ToolArg;
import io.quarkiverse.mcp.server.ToolResponse;
import io.quarkus.test.QuarkusUnitTest;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Review: mcpgate.store=redis on a reachable Redis, and a gated tool whose @Idempotent the gate
 * refuses. The startup connects the store (verify) and then fails on the tool. docs/quarkus.md says
 * "The store and the Lettuce client it made are closed with the application": after the failed
 * startup, no Lettuce thread may be left running.
 */
class RedisFailedStartupLeakReviewTest {
  static final String URL =
      java.util.Objects.requireNonNullElse(
          System.getenv("MCPGATE_TEST_REDIS_URL"), "redis://127.0.0.1:6379");

  @RegisterExtension
  static final QuarkusUnitTest APP =
      new QuarkusUnitTest()
          .withApplicationRoot(jar -> jar.addClasses(MailTools.class))
          .overrideConfigKey("quarkus.devservices.enabled", "false")
          .overrideConfigKey("mcpgate.store", "redis")
          .overrideConfigKey("mcpgate.redis.url", URL)
          .overrideConfigKey("mcpgate.tenant.constant", "demo")
          .assertException(
              e -> {
                assertThat(e).hasStackTraceContaining("MCP Gate cannot gate tool sendMail");
                List<String> lettuce = List.of();
                for (int i = 0; i < 50; i++) {
                  lettuce = lettuceThreads();
                  if (lettuce.isEmpty()) {
                    break;
                  }
                  try {
                    Thread.sleep(100);
                  } catch (InterruptedException x) {
                    Thread.currentThread().interrupt();
                  }
                }
                assertThat(lettuce)
                    .as("Lettuce threads alive 5 s after the failed startup")
                    .isEmpty();
              });

  static List<String> lettuceThreads() {
    return Thread.getAllStackTraces().keySet().stream()
        .filter(Thread::isAlive)
        .map(Thread::getName)
        .filter(n -> n.startsWith("lettuce-"))
        .collect(Collectors.toList());
  }

  @Test
  void theStartupFailsAndLeavesNoLettuceThread() {}

  /** A tool whose retention is not a duration. */
  public static class MailTools {
    @Tool(annotations = @Tool.Annotations(idempotentHint = true))
    @Idempotent(retention = "two hours")
    ToolResponse sendMail(
        String to, @ToolArg(name = "idempotency_key", required = false) String idempotencyKey) {
      return ToolResponse.success("sent");
    }
  }
}
