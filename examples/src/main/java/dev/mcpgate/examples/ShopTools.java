package dev.mcpgate.examples;

import static java.util.Map.entry;

import dev.mcpgate.core.ClaimContext;
import dev.mcpgate.core.GateSettings;
import dev.mcpgate.mcp.GatedClaim;
import dev.mcpgate.mcp.KeySource;
import dev.mcpgate.mcp.ToolPolicy;
import io.modelcontextprotocol.server.McpServerFeatures.SyncToolSpecification;
import io.modelcontextprotocol.spec.McpSchema;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/** Money and mail: the tools whose second run costs the most. */
final class ShopTools {
  private final ExampleServer server;

  ShopTools(ExampleServer server) {
    this.server = server;
  }

  /**
   * refund_order(order_id, amount_cents, idempotency_key): a required caller key; the downstream
   * key goes to the payment provider with the refund.
   */
  SyncToolSpecification refundOrder() {
    McpSchema.Tool tool =
        McpSchema.Tool.builder(
                "refund_order",
                Schemas.object(
                    List.of("order_id", "amount_cents"),
                    entry("order_id", Schemas.string("the order to refund, e.g. ord_9f2")),
                    entry("amount_cents", Schemas.integer("how much to refund, in cents"))))
            .description("Refund part or all of an order to the customer's card.")
            .annotations(
                new McpSchema.ToolAnnotations("Refund an order", false, true, null, true, null))
            .build();
    SyncToolSpecification spec =
        new SyncToolSpecification(
            tool,
            (exchange, request) -> {
              server.executed("refund_order");
              String downstreamKey =
                  GatedClaim.of(request).map(ClaimContext::downstreamKey).orElse(null);
              String orderId = (String) request.arguments().get("order_id");
              Object amountArgument = request.arguments().get("amount_cents");
              long amount = cents(amountArgument);
              if (amount <= 0) {
                return Results.error(
                    "amount_cents must be a whole number of cents from 1 to "
                        + Long.MAX_VALUE
                        + ", was "
                        + amountArgument);
              }
              Externals.Refund refund =
                  server.externals.payments.refund(orderId, amount, downstreamKey);
              if (server.crashAfterNextRefund.getAndSet(false)) {
                // the demo's crash: the provider has the refund, the gate never hears of it
                throw new IllegalStateException(
                    "simulated crash after the payment provider accepted"
                        + " refund "
                        + refund.refundId());
              }
              Map<String, Object> structured = new LinkedHashMap<>();
              structured.put("refund_id", refund.refundId());
              structured.put("order_id", orderId);
              structured.put("amount_cents", amount);
              return Results.ok(
                  "Refunded " + amount + " cents of " + orderId + " as " + refund.refundId(),
                  structured);
            });
    return server.gate(
        spec,
        ToolPolicy.builder()
            .keySources(KeySource.ARGUMENT, KeySource.META, KeySource.HEADER)
            .build());
  }

  /**
   * @return the amount as a whole number of cents, exactly; 0 when it is not one (a fraction, NaN,
   *     a value past a long, not a number): never a rounded or truncated value
   */
  static long cents(Object value) {
    BigDecimal exact;
    if (value instanceof Integer
        || value instanceof Long
        || value instanceof Short
        || value instanceof Byte) {
      return ((Number) value).longValue();
    } else if (value instanceof BigInteger b) {
      exact = new BigDecimal(b);
    } else if (value instanceof BigDecimal d) {
      exact = d;
    } else if (value instanceof Double || value instanceof Float) {
      double d = ((Number) value).doubleValue();
      if (Double.isNaN(d) || Double.isInfinite(d)) {
        return 0;
      }
      exact = new BigDecimal(d);
    } else {
      return 0;
    }
    try {
      return exact.longValueExact();
    } catch (ArithmeticException notAWholeLong) {
      return 0;
    }
  }

  /** send_password_reset(email, idempotency_key): mail, kept for replay only 2 hours. */
  SyncToolSpecification sendPasswordReset() {
    McpSchema.Tool tool =
        McpSchema.Tool.builder(
                "send_password_reset",
                Schemas.object(
                    List.of("email"), entry("email", Schemas.string("the account's address"))))
            .description("Send a password reset mail to an account's address.")
            .annotations(
                new McpSchema.ToolAnnotations("Password reset", false, false, null, true, null))
            .build();
    SyncToolSpecification spec =
        new SyncToolSpecification(
            tool,
            (exchange, request) -> {
              server.executed("send_password_reset");
              String messageId =
                  "<"
                      + GatedClaim.of(request)
                          .map(ClaimContext::downstreamKey)
                          .orElse(UUID.randomUUID().toString())
                      + "@example.mcpgate.dev>";
              String email = (String) request.arguments().get("email");
              Externals.Mail mail =
                  server.externals.mailer.send(email, "Reset your password", messageId);
              return Results.ok(
                  "Sent a password reset mail to " + email, Map.of("message_id", mail.messageId()));
            });
    return server.gate(
        spec,
        ToolPolicy.builder()
            .settings(GateSettings.builder().retention(Duration.ofHours(2)).build())
            .build());
  }
}
