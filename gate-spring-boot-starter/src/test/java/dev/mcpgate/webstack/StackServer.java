package dev.mcpgate.webstack;

import dev.mcpgate.mcp.Idempotent;
import java.util.concurrent.atomic.AtomicInteger;
import org.springframework.ai.mcp.annotation.McpTool;
import org.springframework.ai.mcp.annotation.McpToolParam;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import reactor.core.publisher.Mono;

/**
 * A Spring AI MCP server with one gated write tool, {@code transfer_funds}, as a sync ({@link
 * SyncTools}) or an async ({@link AsyncTools}) tool, on whichever web stack the class path has
 * (WebMVC in gate-spring-boot-starter, WebFlux in gate-spring-boot-starter-webflux-tests). The
 * stack's test adds its Spring Security configuration (HTTP Basic, users alice and bob, anonymous
 * callers let in). No component scan: the test says which beans the application gets.
 */
@SpringBootConfiguration
@EnableAutoConfiguration
public class StackServer {
  /** Every execution of the tool, in this JVM. */
  public static final AtomicInteger TRANSFERS = new AtomicInteger();

  /** The account whose transfers take a while, so that racing copies overlap. */
  public static final String SLOW = "acct_slow";

  static String transfer(String to, int cents) {
    if (SLOW.equals(to)) {
      try {
        Thread.sleep(300);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    return "transfer " + TRANSFERS.incrementAndGet() + " of " + cents + " cents to " + to;
  }

  /** The tool as a sync specification. */
  public static class SyncTools {
    @McpTool(name = "transfer_funds", description = "Move money to an account")
    @Idempotent
    public String transfer(
        @McpToolParam(description = "the account") String to,
        @McpToolParam(description = "the amount in cents") int cents) {
      return StackServer.transfer(to, cents);
    }
  }

  /** The tool as an async specification. */
  public static class AsyncTools {
    @McpTool(name = "transfer_funds", description = "Move money to an account")
    @Idempotent
    public Mono<String> transfer(
        @McpToolParam(description = "the account") String to,
        @McpToolParam(description = "the amount in cents") int cents) {
      return Mono.fromSupplier(() -> StackServer.transfer(to, cents));
    }
  }
}
