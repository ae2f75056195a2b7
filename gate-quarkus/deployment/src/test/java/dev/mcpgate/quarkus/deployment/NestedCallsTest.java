package dev.mcpgate.quarkus.deployment;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.mcp.Idempotent;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import io.modelcontextprotocol.spec.McpSchema.TextContent;
import io.quarkiverse.mcp.server.Tool;
import io.quarkiverse.mcp.server.ToolArg;
import io.quarkiverse.mcp.server.ToolResponse;
import io.quarkus.test.QuarkusUnitTest;
import jakarta.inject.Inject;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A gated tool method called from Java: inside the gated {@code tools/call} of the request it is
 * part of that call's action (the outer call is the intent, and is what replays); in a request
 * whose {@code tools/call} is not gated it is gated as a call of its own, and refused without a key
 * of its own.
 */
class NestedCallsTest {

  @RegisterExtension
  static final QuarkusUnitTest APP =
      new QuarkusUnitTest()
          .withApplicationRoot(jar -> jar.addClasses(Charges.class, Orders.class, TestClient.class))
          .overrideConfigKey("quarkus.devservices.enabled", "false")
          .overrideConfigKey("quarkus.http.test-port", "0")
          .overrideConfigKey("mcpgate.store", "memory")
          .overrideConfigKey("mcpgate.tenant.constant", "nested");

  static final Map<String, AtomicInteger> CHARGES = new ConcurrentHashMap<>();

  static int charges(String account) {
    AtomicInteger n = CHARGES.get(account);
    return n == null ? 0 : n.get();
  }

  /** A gated charge tool, also called from Java by {@link Orders}. */
  public static class Charges {
    @Tool(
        description = "Charges an account.",
        annotations = @Tool.Annotations(idempotentHint = true))
    @Idempotent
    public ToolResponse charge(
        @ToolArg(name = "account") String account,
        @ToolArg(name = "amount_cents") long amountCents,
        @ToolArg(name = "idempotency_key", required = false) String idempotencyKey) {
      int n = CHARGES.computeIfAbsent(account, k -> new AtomicInteger()).incrementAndGet();
      return ToolResponse.success("charged " + amountCents + " (charge " + n + ")");
    }
  }

  /** Order tools that charge two lines through {@link Charges}: one gated, one not. */
  public static class Orders {
    @Inject Charges charges;

    @Tool(
        description = "Places an order of two equal lines.",
        annotations = @Tool.Annotations(idempotentHint = true))
    @Idempotent
    ToolResponse order(
        @ToolArg(name = "account") String account,
        @ToolArg(name = "line_cents") long lineCents,
        @ToolArg(name = "idempotency_key", required = false) String idempotencyKey) {
      return ToolResponse.success(
          text(charges.charge(account, lineCents, null))
              + "; "
              + text(charges.charge(account, lineCents, null)));
    }

    @Tool(description = "Places an order of two equal lines, not gated itself.")
    ToolResponse ungatedOrder(
        @ToolArg(name = "account") String account,
        @ToolArg(name = "line_cents") long lineCents,
        @ToolArg(name = "line_key", required = false) String lineKey) {
      return ToolResponse.success(
          text(charges.charge(account, lineCents, lineKey))
              + "; "
              + text(charges.charge(account, lineCents, lineKey)));
    }

    private static String text(ToolResponse r) {
      return r.isError()
          + ":"
          + ((io.quarkiverse.mcp.server.TextContent) r.content().get(0)).text();
    }
  }

  private static final TestClient CLIENT = new TestClient();

  static McpSyncClient client() {
    return CLIENT.get();
  }

  @AfterAll
  static void close() {
    CLIENT.close();
  }

  private static CallToolResult order(String account, String key) {
    return client()
        .callTool(
            new CallToolRequest(
                "order",
                Map.of("account", account, "line_cents", 500),
                Map.of("dev.mcpgate/idempotency-key", key)));
  }

  private static String text(CallToolResult result) {
    return ((TextContent) result.content().get(0)).text();
  }

  @Test
  void theOuterCallIsTheIntentItsRetryReplaysAndANewKeyRunsBothLinesAgain() {
    String account = UUID.randomUUID().toString();
    String key = UUID.randomUUID().toString();
    CallToolResult first = order(account, key);
    CallToolResult retry = order(account, key);
    CallToolResult another = order(account, UUID.randomUUID().toString());

    assertThat(first.isError()).as("%s", first).isFalse();
    assertThat(text(first)).isEqualTo("false:charged 500 (charge 1); false:charged 500 (charge 2)");
    assertThat(retry.meta()).containsEntry("dev.mcpgate/replayed", true);
    assertThat(text(retry)).isEqualTo(text(first));
    assertThat(text(another))
        .isEqualTo("false:charged 500 (charge 3); false:charged 500 (charge 4)");
    assertThat(charges(account)).isEqualTo(4);
  }

  @Test
  void insideAnUngatedToolCallAGatedMethodIsGatedAndNeedsAKeyOfItsOwn() {
    String account = UUID.randomUUID().toString();
    CallToolResult withoutKey =
        client()
            .callTool(
                new CallToolRequest(
                    "ungatedOrder",
                    Map.of("account", account, "line_cents", 500),
                    Map.of("dev.mcpgate/idempotency-key", UUID.randomUUID().toString())));

    assertThat(text(withoutKey)).startsWith("true:").contains("; true:");
    assertThat(charges(account)).isZero();

    CallToolResult withKey =
        client()
            .callTool(
                new CallToolRequest(
                    "ungatedOrder",
                    Map.of(
                        "account",
                        account,
                        "line_cents",
                        500,
                        "line_key",
                        UUID.randomUUID().toString())));

    assertThat(text(withKey))
        .startsWith("false:charged 500 (charge 1); false:charged 500 (charge 1)");
    assertThat(charges(account)).isEqualTo(1);
  }
}
