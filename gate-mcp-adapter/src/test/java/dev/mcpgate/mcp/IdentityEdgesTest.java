package dev.mcpgate.mcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.mcpgate.core.GatePolicy;
import dev.mcpgate.core.IdempotencyGate;
import dev.mcpgate.core.memory.InMemoryIdempotencyStore;
import io.modelcontextprotocol.common.McpTransportContext;
import io.modelcontextprotocol.server.McpServerFeatures;
import io.modelcontextprotocol.server.McpStatelessServerFeatures;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Identity and input edges, each with the typed refusal a model or an app can act on: keys that are
 * not valid Unicode, two keys in one call, tenant problems, arguments with no canonical form, and
 * an annotation that inherits the gate's failure mode.
 */
class IdentityEdgesTest {
  private final AtomicInteger runs = new AtomicInteger();
  private final McpGate mcpGate =
      McpGate.builder(IdempotencyGate.builder(InMemoryIdempotencyStore.create()).build())
          .tenantResolver(TenantResolver.fromTransportContext("tenant"))
          .build();
  private final McpStatelessServerFeatures.SyncToolSpecification refund =
      mcpGate.gate(
          new McpStatelessServerFeatures.SyncToolSpecification(
              new TestTools().refundTool(),
              (ctx, req) ->
                  CallToolResult.builder().addTextContent("run " + runs.incrementAndGet()).build()),
          ToolPolicy.defaults());

  private CallToolResult call(
      String tenant, Map<String, Object> arguments, Map<String, Object> meta) {
    Map<String, Object> context = new HashMap<>();
    if (tenant != null) {
      context.put("tenant", tenant);
    }
    return refund
        .callHandler()
        .apply(
            McpTransportContext.create(context),
            new CallToolRequest("refund_order", arguments, meta));
  }

  private static Map<String, Object> args(Object key) {
    Map<String, Object> args = new HashMap<>(Map.of("order_id", "ord_1", "amount_cents", 500));
    if (key != null) {
      args.put("idempotency_key", key);
    }
    return args;
  }

  @Test
  void keysWithALoneSurrogateAreRefusedAsInvalidNamingTheIndex() {
    for (String key : List.of("k\ud800", "k\udc00", "\udbffk")) {
      CallToolResult result = call("acme", args(key), null);
      assertThat(GatedServerContract.error(result))
          .as(key)
          .containsEntry("type", McpGateErrors.KEY_INVALID);
      assertThat(GatedServerContract.error(result).get("message").toString())
          .contains("lone UTF-16 surrogate")
          .contains("at index");
    }
    CallToolResult plain = call("acme", args("k?"), null);
    assertThat(plain.isError()).isNotEqualTo(Boolean.TRUE);
    assertThat(runs).hasValue(1);
  }

  @Test
  void twoDifferentKeysInOneCallAreRefusedAsAmbiguousAndTheSameKeyTwiceIsFine() {
    CallToolResult ambiguous =
        call("acme", args("k-arg"), Map.of(McpGateErrors.META_KEY, "k-meta"));
    assertThat(GatedServerContract.error(ambiguous))
        .containsEntry("type", McpGateErrors.KEY_INVALID);
    assertThat(GatedServerContract.error(ambiguous).get("message").toString())
        .contains("different keys");
    assertThat(runs).hasValue(0);

    CallToolResult agreeing =
        call("acme", args("k-same"), Map.of(McpGateErrors.META_KEY, "k-same"));
    assertThat(agreeing.isError()).isNotEqualTo(Boolean.TRUE);
    assertThat(runs).hasValue(1);
  }

  @Test
  void tenantProblemsHaveTheirOwnTypesAndSayARetryWillNotHelp() {
    CallToolResult missing = call(null, args("k-1"), null);
    assertThat(GatedServerContract.error(missing))
        .containsEntry("type", McpGateErrors.TENANT_UNKNOWN);
    assertThat(GatedServerContract.error(missing).get("message").toString())
        .contains("retrying will not help");

    CallToolResult invalid = call("acme\u0000evil", args("k-1"), null);
    assertThat(GatedServerContract.error(invalid))
        .containsEntry("type", McpGateErrors.TENANT_INVALID);
    assertThat(GatedServerContract.error(invalid).get("message").toString())
        .doesNotContain("Send a key")
        .doesNotContain("acme"); // no message to the model echoes a tenant value
    assertThat(runs).hasValue(0);
  }

  @Test
  void argumentsWithNoCanonicalFormAreRefusedAsArgumentProblems() {
    Map<String, Object> nan = args("k-nan");
    nan.put("amount_cents", Double.NaN);
    CallToolResult result = call("acme", nan, null);

    assertThat(GatedServerContract.error(result))
        .containsEntry("type", McpGateErrors.ARGUMENTS_INVALID);
    assertThat(GatedServerContract.error(result).get("message").toString())
        .contains("$.amount_cents");
    assertThat(runs).hasValue(0);
  }

  /** A tool bean whose annotation says nothing about failures. */
  static final class Mailer {
    final AtomicInteger sends = new AtomicInteger();

    @Idempotent(tool = "send_mail")
    public CallToolResult sendMail(CallToolRequest request) {
      sends.incrementAndGet();
      return CallToolResult.builder().isError(true).addTextContent("mailbox full").build();
    }
  }

  @Test
  void anAnnotationThatSaysNothingAboutFailuresInheritsTheGatesFailureMode() {
    McpGate storing =
        McpGate.builder(
                IdempotencyGate.builder(InMemoryIdempotencyStore.create())
                    .policy(GatePolicy.builder().failureMode(GatePolicy.FailureMode.STORE).build())
                    .build())
            .tenantResolver(TenantResolver.fixed("acme"))
            .build();
    Mailer mailer = new Mailer();
    McpSchema.Tool tool = McpSchema.Tool.builder("send_mail", Map.of("type", "object")).build();
    McpServerFeatures.SyncToolSpecification spec =
        storing
            .gateAnnotated(
                List.of(
                    new McpServerFeatures.SyncToolSpecification(
                        tool, (ex, req) -> mailer.sendMail(req))),
                mailer)
            .get(0);
    CallToolRequest request = new CallToolRequest("send_mail", Map.of("idempotency_key", "m-1"));

    try (McpHarness harness = McpHarness.stdio(List.of(spec))) {
      CallToolResult first = harness.client(null).callTool(request);
      CallToolResult retry = harness.client(null).callTool(request);

      assertThat(first.isError()).isTrue();
      assertThat(retry.meta()).containsEntry(McpGateErrors.META_REPLAYED, true);
      assertThat(mailer.sends).as("the stored failure is replayed, not run again").hasValue(1);
    }
  }

  @Test
  void anAnnotationNamingTwoFailureModesIsRefused() {
    final class Twice {
      @Idempotent(
          tool = "t",
          failureMode = {GatePolicy.FailureMode.STORE, GatePolicy.FailureMode.RELEASE})
      public void t() {}
    }
    assertThatThrownBy(() -> AnnotatedTools.policies(new Twice()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("more than one");
  }
}
