package dev.mcpgate.mcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.mcpgate.core.GatePolicy;
import dev.mcpgate.core.IdempotencyGate;
import dev.mcpgate.core.memory.InMemoryIdempotencyStore;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.server.McpServerFeatures;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.springframework.ai.mcp.annotation.McpTool;
import org.springframework.ai.mcp.annotation.McpToolParam;
import org.springframework.ai.mcp.annotation.provider.tool.AsyncMcpToolProvider;
import org.springframework.ai.mcp.annotation.provider.tool.SyncMcpToolProvider;
import reactor.core.publisher.Mono;

/**
 * {@code @Idempotent} on tools defined with Spring AI's real {@code @McpTool} annotations, turned
 * into specifications by Spring AI's own tool provider, then gated in one call.
 */
class AnnotatedToolsTest {

  /** A bean the way a Spring AI server defines tools. */
  public static class MailTools {
    final AtomicInteger resets = new AtomicInteger();
    final AtomicInteger lookups = new AtomicInteger();
    final AtomicInteger notes = new AtomicInteger();

    @McpTool(name = "send_password_reset", description = "Send a password reset mail.")
    @Idempotent(retention = "PT2H")
    public String sendPasswordReset(@McpToolParam(description = "the address") String email) {
      return "mail " + resets.incrementAndGet() + " to " + email;
    }

    @McpTool(name = "lookup_user", description = "Find a user.")
    public String lookupUser(@McpToolParam(description = "the address") String email) {
      return "user " + lookups.incrementAndGet();
    }

    @McpTool(description = "Add a note.")
    @Idempotent(
        keySources = KeySource.NATURAL,
        naturalKey = {"ticket", "text"})
    public String addNote(
        @McpToolParam(description = "ticket") String ticket,
        @McpToolParam(description = "text") String text) {
      return "note " + notes.incrementAndGet();
    }
  }

  @Test
  void springAiToolsAreGatedByNameAndTheOthersPassThrough() {
    MailTools bean = new MailTools();
    List<McpServerFeatures.SyncToolSpecification> specs =
        new SyncMcpToolProvider(List.of(bean)).getToolSpecifications();
    IdempotencyGate gate =
        IdempotencyGate.builder(InMemoryIdempotencyStore.create())
            .policy(GatePolicy.builder().inFlightWait(Duration.ofSeconds(10)).build())
            .build();
    McpGate mcpGate = McpGate.builder(gate).tenantResolver(TenantResolver.fixed("local")).build();

    List<McpServerFeatures.SyncToolSpecification> gated = mcpGate.gateAnnotated(specs, bean);

    try (McpHarness harness = McpHarness.stdio(gated)) {
      McpSyncClient client = harness.client(null);
      CallToolResult[] resets = resetTwiceAndLookUpTwice(client);
      CallToolResult first = resets[0];
      CallToolResult retry = resets[1];
      client.callTool(new CallToolRequest("addNote", Map.of("ticket", "T-1", "text", "hi")));
      client.callTool(new CallToolRequest("addNote", Map.of("ticket", "T-1", "text", "hi")));

      assertThat(bean.resets).hasValue(1);
      assertThat(retry.content()).isEqualTo(first.content());
      assertThat(retry.meta()).containsEntry(McpGateErrors.META_REPLAYED, true);
      assertThat(bean.lookups).hasValue(2);
      assertThat(bean.notes).hasValue(1);

      List<McpSchema.Tool> listed = client.listTools().tools();
      McpSchema.Tool mail =
          listed.stream()
              .filter(t -> t.name().equals("send_password_reset"))
              .findFirst()
              .orElseThrow();
      assertThat(mail.annotations().idempotentHint()).isTrue();
      assertThat(mail.inputSchema().get("properties").toString()).contains("idempotency_key");
    }
  }

  /** A bean whose tools answer asynchronously, as on an async Spring AI server. */
  public static class AsyncMailTools {
    final AtomicInteger resets = new AtomicInteger();
    final AtomicInteger lookups = new AtomicInteger();

    @McpTool(name = "send_password_reset", description = "Send a password reset mail.")
    @Idempotent
    public Mono<String> sendPasswordReset(@McpToolParam(description = "the address") String email) {
      return Mono.fromSupplier(() -> "mail " + resets.incrementAndGet() + " to " + email);
    }

    @McpTool(name = "lookup_user", description = "Find a user.")
    public Mono<String> lookupUser(@McpToolParam(description = "the address") String email) {
      return Mono.fromSupplier(() -> "user " + lookups.incrementAndGet());
    }
  }

  @Test
  void asyncSpringAiToolsAreGatedByNameAndTheOthersPassThrough() {
    AsyncMailTools bean = new AsyncMailTools();
    List<McpServerFeatures.AsyncToolSpecification> specs =
        new AsyncMcpToolProvider(List.of(bean)).getToolSpecifications();
    McpGate mcpGate =
        McpGate.builder(IdempotencyGate.builder(InMemoryIdempotencyStore.create()).build())
            .tenantResolver(TenantResolver.fixed("local"))
            .build();

    List<McpServerFeatures.AsyncToolSpecification> gated = mcpGate.gateAnnotatedAsync(specs, bean);

    assertThat(gated).hasSameSizeAs(specs);
    try (McpHarness harness = McpHarness.http(null, gated)) {
      McpSyncClient client = harness.client(null);
      CallToolResult[] resets = resetTwiceAndLookUpTwice(client);
      CallToolResult first = resets[0];
      CallToolResult retry = resets[1];

      assertThat(first.isError()).isNotEqualTo(Boolean.TRUE);
      assertThat(bean.resets).hasValue(1);
      assertThat(retry.content()).isEqualTo(first.content());
      assertThat(retry.meta()).containsEntry(McpGateErrors.META_REPLAYED, true);
      assertThat(bean.lookups).hasValue(2);
    }
  }

  /** A reset mail sent, and sent again as a retry; then a user looked up twice (not gated). */
  private static CallToolResult[] resetTwiceAndLookUpTwice(McpSyncClient client) {
    CallToolRequest reset =
        new CallToolRequest(
            "send_password_reset",
            Map.of("email", "ada@example.com", "idempotency_key", "reset-1"));
    CallToolResult[] answers = {client.callTool(reset), client.callTool(reset)};
    client.callTool(new CallToolRequest("lookup_user", Map.of("email", "ada@example.com")));
    client.callTool(new CallToolRequest("lookup_user", Map.of("email", "ada@example.com")));
    return answers;
  }

  @Test
  void annotationAttributesBecomeThePolicy() {
    Map<String, ToolPolicy> policies = AnnotatedTools.policies(new MailTools());

    assertThat(policies).containsOnlyKeys("send_password_reset", "addNote");
    assertThat(policies.get("send_password_reset").settings().retention())
        .isEqualTo(Duration.ofHours(2));
    assertThat(policies.get("addNote").keySources()).containsExactly(KeySource.NATURAL);
    assertThat(policies.get("addNote").naturalKey()).containsExactly("ticket", "text");
  }

  /** An annotated method whose tool is not among the specifications. */
  public static class Stray {
    @Idempotent(tool = "no_such_tool")
    public String act() {
      return "x";
    }
  }

  @Test
  void anAnnotatedToolMissingFromTheSpecificationsIsAnErrorNamingIt() {
    McpGate mcpGate =
        McpGate.builder(IdempotencyGate.builder(InMemoryIdempotencyStore.create()).build())
            .tenantResolver(TenantResolver.fixed("local"))
            .build();

    assertThatThrownBy(() -> mcpGate.gateAnnotated(List.of(), new Stray()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("no_such_tool");
  }

  /** A badly written duration. */
  public static class BadDuration {
    @Idempotent(tool = "t", retention = "2 hours")
    public String act() {
      return "x";
    }
  }

  @Test
  void aBadDurationIsAnErrorNamingIt() {
    assertThatThrownBy(() -> AnnotatedTools.policies(new BadDuration()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("\"2 hours\"");
  }
}
