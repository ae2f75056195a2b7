package dev.mcpgate.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.core.ClaimId;
import dev.mcpgate.core.GateEvent;
import dev.mcpgate.core.IdempotencyGate;
import dev.mcpgate.core.KeyDigest;
import dev.mcpgate.core.audit.AuditRecord;
import dev.mcpgate.core.memory.InMemoryIdempotencyStore;
import dev.mcpgate.core.spi.ClaimRecord;
import io.modelcontextprotocol.common.McpTransportContext;
import io.modelcontextprotocol.json.McpJsonDefaults;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A natural key is argument values in clear (an email address): the store, the events (and so the
 * logs), the audit trail and the model never see it; the gate replays and conflicts by it as
 * before, and an operator finds the call by its raw key.
 */
class NaturalKeyPrivacyTest {
  private static final String EMAIL = "alice@example.com";
  private static final McpSchema.Tool RESET =
      McpSchema.Tool.builder()
          .name("send_reset")
          .description("Send a password reset mail.")
          .inputSchema(
              McpJsonDefaults.getMapper(),
              "{\"type\":\"object\",\"properties\":{"
                  + "\"email\":{\"type\":\"string\"},\"locale\":{\"type\":\"string\"}}}")
          .build();

  private final InMemoryIdempotencyStore store = InMemoryIdempotencyStore.create();
  private final List<GateEvent> events = new CopyOnWriteArrayList<>();
  private final List<AuditRecord> audit = new CopyOnWriteArrayList<>();
  private final IdempotencyGate gate = IdempotencyGate.builder(store).listener(events::add).build();
  private final AtomicInteger sent = new AtomicInteger();

  @AfterEach
  void close() {
    gate.close();
  }

  private McpStatelessServerFeaturesSync gated(McpGate.Builder builder) {
    return gated(
        builder, ToolPolicy.builder().keySources(KeySource.NATURAL).naturalKey("email").build());
  }

  private McpStatelessServerFeaturesSync gated(McpGate.Builder builder, ToolPolicy policy) {
    McpGate mcpGate =
        builder.tenantResolver(TenantResolver.fixed("acme")).audit(audit::add).build();
    var spec =
        new io.modelcontextprotocol.server.McpStatelessServerFeatures.SyncToolSpecification(
            RESET,
            (context, request) -> {
              sent.incrementAndGet();
              return CallToolResult.builder().addTextContent("mail sent").build();
            });
    var gatedSpec = mcpGate.gate(spec, policy);
    return request -> gatedSpec.callHandler().apply(McpTransportContext.EMPTY, request);
  }

  @FunctionalInterface
  private interface McpStatelessServerFeaturesSync {
    CallToolResult call(CallToolRequest request);
  }

  private static CallToolRequest reset(String locale) {
    return new CallToolRequest("send_reset", Map.of("email", EMAIL, "locale", locale));
  }

  private static String everything(Object... things) {
    StringBuilder all = new StringBuilder();
    for (Object t : things) {
      all.append(t).append('\n');
    }
    return all.toString();
  }

  @Test
  void theRawNaturalKeyIsNeverStoredLoggedAuditedOrToldToTheModel() {
    McpStatelessServerFeaturesSync tool = gated(McpGate.builder(gate));

    tool.call(reset("en"));
    CallToolResult replay = tool.call(reset("en"));
    CallToolResult conflict = tool.call(reset("fr"));

    assertThat(sent).as("replayed and refused as before").hasValue(1);
    assertThat(replay.meta()).containsEntry(McpGateErrors.META_REPLAYED, true);
    assertThat(conflict.isError()).isTrue();
    ClaimId raw =
        new ClaimId("constant:acme", "send_reset", KeyExtractor.naturalKey(List.of(EMAIL)));
    ClaimRecord row = store.find(KeyDigest.sha256().digested(raw)).orElseThrow();
    assertThat(store.find(raw)).as("nothing under the raw key").isEmpty();
    assertThat(row.id().key()).startsWith("k1:").doesNotContain("alice");
    assertThat(
            everything(
                events.stream().map(e -> e.id() + " " + e.message()).toList(),
                audit.stream().map(a -> a.key() + " " + a.reason()).toList(),
                conflict.content(),
                conflict.structuredContent(),
                replay.content()))
        .doesNotContain("alice")
        .doesNotContain("example.com");
    assertThat(everything(conflict.content(), conflict.structuredContent()))
        .as("the model is not shown the digest either")
        .doesNotContain(row.id().key())
        .contains("made from its arguments");
  }

  @Test
  void aSecretKeysTheDigestAndEveryKeyCanBeDigested() {
    byte[] secret = "a secret of thirty-two bytes!!!!".getBytes(StandardCharsets.US_ASCII);
    McpStatelessServerFeaturesSync tool =
        gated(McpGate.builder(gate).keyDigest(KeyDigest.hmacSha256(secret)).digestAllKeys(true));

    tool.call(reset("en"));

    ClaimId raw =
        new ClaimId("constant:acme", "send_reset", KeyExtractor.naturalKey(List.of(EMAIL)));
    assertThat(store.find(KeyDigest.hmacSha256(secret).digested(raw))).isPresent();
    assertThat(store.find(KeyDigest.sha256().digested(raw))).isEmpty();
  }

  @Test
  void anInvalidKeyThatWouldBeDigestedIsRefusedWithoutQuotingAnyOfIt() {
    String tooLong = "refund-for-bob.smith@example.com-card-4111111111111111-" + "x".repeat(250);
    String withTab = "ssn\u0009078-05-1120";
    McpStatelessServerFeaturesSync everyKeyDigested =
        gated(McpGate.builder(gate).digestAllKeys(true), ToolPolicy.defaults());
    List<CallToolResult> answers = new java.util.ArrayList<>();
    for (String key : List.of(tooLong, withTab)) {
      answers.add(
          everyKeyDigested.call(
              new CallToolRequest("send_reset", Map.of("email", EMAIL, "idempotency_key", key))));
    }
    // (a natural key never breaks a rule: canonical JSON, and hashed past 255 characters)
    assertThat(sent).as("refused before the handler").hasValue(0);
    assertThat(answers).allSatisfy(a -> assertThat(a.isError()).isTrue());
    String told =
        everything(
            answers.stream().map(CallToolResult::content).toList(),
            answers.stream().map(CallToolResult::structuredContent).toList(),
            audit.stream().map(a -> a.key() + " " + a.reason()).toList());
    assertThat(told)
        .as("the rule is named")
        .contains("at most 255 characters")
        .contains("control characters");
    for (String part : List.of("bob", "smith", "4111", "078-05", "ssn", "alice", "example")) {
      assertThat(told).as("no part of the key: %s", part).doesNotContain(part);
    }
  }

  @Test
  void anInvalidKeyKeptInClearIsQuotedSoTheClientCanFindIt() {
    CallToolResult answer =
        gated(McpGate.builder(gate), ToolPolicy.defaults())
            .call(
                new CallToolRequest(
                    "send_reset", Map.of("email", EMAIL, "idempotency_key", "order\u00097")));
    assertThat(everything(answer.content())).contains("order");
  }

  @Test
  void aClientsKeyIsKeptRawUnlessEveryKeyIsDigested() {
    CallToolRequest withKey =
        new CallToolRequest(
            "send_reset", Map.of("email", EMAIL, "idempotency_key", "client-key-1"));
    gated(McpGate.builder(gate), ToolPolicy.defaults()).call(withKey);
    assertThat(store.find(new ClaimId("constant:acme", "send_reset", "client-key-1"))).isPresent();

    gated(McpGate.builder(gate).digestAllKeys(true), ToolPolicy.defaults())
        .call(
            new CallToolRequest(
                "send_reset", Map.of("email", EMAIL, "idempotency_key", "client-key-2")));
    assertThat(store.find(new ClaimId("constant:acme", "send_reset", "client-key-2"))).isEmpty();
    assertThat(
            store.find(
                KeyDigest.sha256()
                    .digested(new ClaimId("constant:acme", "send_reset", "client-key-2"))))
        .isPresent();
  }
}
