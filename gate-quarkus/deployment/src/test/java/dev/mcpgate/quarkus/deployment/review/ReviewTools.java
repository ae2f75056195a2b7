package dev.mcpgate.quarkus.deployment.review;

import com.fasterxml.jackson.annotation.JsonProperty;
import dev.mcpgate.mcp.Idempotent;
import io.quarkiverse.mcp.server.EmbeddedResource;
import io.quarkiverse.mcp.server.TextContent;
import io.quarkiverse.mcp.server.TextResourceContents;
import io.quarkiverse.mcp.server.Tool;
import io.quarkiverse.mcp.server.ToolArg;
import io.quarkiverse.mcp.server.ToolResponse;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/** Tools of the review tests; each counts how often it ran, per id. */
public class ReviewTools {
  static final Map<String, AtomicInteger> RUNS = new ConcurrentHashMap<>();

  public static int runs(String id) {
    AtomicInteger n = RUNS.get(id);
    return n == null ? 0 : n.get();
  }

  static int ran(String id) {
    return RUNS.computeIfAbsent(id, k -> new AtomicInteger()).incrementAndGet();
  }

  /** A refund's route, whose constants share one label as their {@code toString()}. */
  public enum Route {
    TO_CARD,
    TO_WALLET;

    @Override
    public String toString() {
      return "refund";
    }
  }

  @Tool(
      description = "Refunds an order by a route.",
      annotations = @Tool.Annotations(idempotentHint = true))
  @Idempotent
  ToolResponse refundBy(
      @ToolArg(name = "order_id") String orderId,
      @ToolArg(name = "route") Route route,
      @ToolArg(name = "idempotency_key", required = false) String idempotencyKey) {
    return ToolResponse.success(
        "refunded " + orderId + " " + route.name() + " (run " + ran(orderId) + ")");
  }

  /** A payment order: the card token is accepted but, as a secret, never written back out. */
  public static class Payment {
    public String account;

    @JsonProperty(access = JsonProperty.Access.WRITE_ONLY)
    public String card;
  }

  @Tool(
      description = "Exports an invoice and attaches it.",
      annotations = @Tool.Annotations(idempotentHint = true))
  @Idempotent
  ToolResponse exportInvoice(
      @ToolArg(name = "order_id") String orderId,
      @ToolArg(name = "idempotency_key", required = false) String idempotencyKey) {
    int n = ran(orderId);
    return ToolResponse.success(
        List.of(
            new TextContent("exported " + orderId + " (run " + n + ")"),
            new EmbeddedResource(
                TextResourceContents.create("invoice://" + orderId, "invoice " + orderId))));
  }

  @Tool(
      description = "Refunds part of an order.",
      annotations = @Tool.Annotations(idempotentHint = true))
  @Idempotent
  ToolResponse refund(
      @ToolArg(name = "order_id") String orderId,
      @ToolArg(name = "amount_cents") long amountCents,
      @ToolArg(name = "idempotency_key", required = false) String idempotencyKey) {
    return ToolResponse.success(
        "refunded " + amountCents + " cents of " + orderId + " (run " + ran(orderId) + ")");
  }

  @Tool(
      description = "Pays from an account with a card.",
      annotations = @Tool.Annotations(idempotentHint = true))
  @Idempotent
  ToolResponse pay(
      @ToolArg(name = "payment") Payment payment,
      @ToolArg(name = "idempotency_key", required = false) String idempotencyKey) {
    return ToolResponse.success(
        "paid from "
            + payment.account
            + " with card "
            + payment.card
            + " (run "
            + ran(payment.account)
            + ")");
  }
}
