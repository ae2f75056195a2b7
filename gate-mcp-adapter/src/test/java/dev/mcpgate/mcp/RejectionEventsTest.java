package dev.mcpgate.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpgate.core.GateEvent;
import dev.mcpgate.core.IdempotencyGate;
import dev.mcpgate.core.RejectionReason;
import dev.mcpgate.core.memory.InMemoryIdempotencyStore;
import io.modelcontextprotocol.server.McpStatelessServerFeatures;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Every call the adapter refuses before the gate is an event for the gate's listeners (so metrics
 * and spans count it), by tool, reason and key source, with no tenant, key or argument value.
 */
class RejectionEventsTest {
  private static final String TENANT = "acme-secret-tenant";

  private final List<GateEvent> events = new CopyOnWriteArrayList<>();
  private final AtomicInteger runs = new AtomicInteger();

  private McpStatelessServerFeatures.SyncToolSpecification refund(
      McpGate.Builder builder, ToolPolicy policy) {
    return builder
        .tenantResolver(TenantResolver.fromTransportContext("tenant"))
        .build()
        .gate(
            new McpStatelessServerFeatures.SyncToolSpecification(
                new TestTools().refundTool(),
                (ctx, req) ->
                    CallToolResult.builder()
                        .addTextContent("refund " + runs.incrementAndGet())
                        .build()),
            policy);
  }

  private McpStatelessServerFeatures.SyncToolSpecification refund(McpGate.Builder builder) {
    return refund(builder, ToolPolicy.defaults());
  }

  private McpGate.Builder gate() {
    return McpGate.builder(
        IdempotencyGate.builder(InMemoryIdempotencyStore.create()).listener(events::add).build());
  }

  private static CallToolResult call(
      McpStatelessServerFeatures.SyncToolSpecification spec,
      String tenant,
      String key,
      Object amount) {
    return AuditTest.call(spec, tenant, key, amount);
  }

  @Test
  void eachRefusalBeforeTheGateIsARejectionEventWithoutTenantKeyOrArguments() {
    var spec =
        refund(
            gate()
                .authorizer(
                    (tenant, ctx, req) ->
                        tenant.endsWith("-banned") ? "This account may not refund." : null));

    call(spec, null, "k-secret-1", 500); // no tenant
    call(spec, "acme\u0001", "k-secret-2", 500); // a tenant with a control character
    call(spec, TENANT + "-banned", "k-secret-3", 500); // the authorizer says no
    call(spec, TENANT, null, 500); // no key
    call(spec, TENANT, "k-secret\u0007", 500); // a key with a control character
    call(spec, TENANT, "k-secret-4", 1250.5); // a number read as a double

    assertThat(runs).hasValue(0);
    assertThat(events)
        .extracting(GateEvent::rejection)
        .containsExactly(
            RejectionReason.TENANT_UNKNOWN,
            RejectionReason.TENANT_INVALID,
            RejectionReason.FORBIDDEN,
            RejectionReason.KEY_REQUIRED,
            RejectionReason.KEY_INVALID,
            RejectionReason.ARGUMENTS_INVALID);
    assertThat(events)
        .extracting(GateEvent::keySource)
        .containsExactly(null, null, null, null, "argument", "argument");
    assertThat(events)
        .extracting(GateEvent::outcome)
        .containsExactly(
            "rejected.tenant_unknown",
            "rejected.tenant_invalid",
            "rejected.forbidden",
            "rejected.key_required",
            "rejected.key_invalid",
            "rejected.arguments_invalid");
    assertThat(events)
        .allSatisfy(
            e -> {
              assertThat(e.type()).isEqualTo(GateEvent.Type.REJECTED);
              assertThat(e.tool()).isEqualTo("refund_order");
              assertThat(e.id()).isNull();
              assertThat(e.attempt()).isZero();
              assertThat(e.toString()).doesNotContain("secret", "acme", "ord_9f2");
            });
  }

  @Test
  void argumentsTheGateCannotHashAreARejectionOfTheGatesOwn() {
    // with inexact numbers accepted, the gate's hash refuses a NaN itself: one event, from the gate
    var spec = refund(gate().acceptInexactNumbers());

    CallToolResult r = call(spec, TENANT, "k-secret-nan", Double.NaN);

    assertThat(r.isError()).isTrue();
    assertThat(runs).hasValue(0);
    assertThat(events).hasSize(1);
    GateEvent e = events.get(0);
    assertThat(e.rejection()).isEqualTo(RejectionReason.ARGUMENTS_INVALID);
    assertThat(e.keySource()).isEqualTo("argument");
    assertThat(e.id()).isNull();
    assertThat(e.toString()).doesNotContain("secret", "acme", "ord_9f2", "NaN");
  }

  @Test
  void aCallWithoutAKeyWhereKeysAreOptionalRunsUngatedAndIsNoRejection() {
    var spec = refund(gate(), ToolPolicy.builder().required(false).build());

    call(spec, TENANT, null, 500);

    assertThat(runs).hasValue(1);
    assertThat(events).isEmpty();
  }
}
