package dev.mcpgate.quarkus.deployment.review;

import dev.mcpgate.mcp.Idempotent;
import io.quarkiverse.mcp.server.Tool;
import io.quarkiverse.mcp.server.ToolArg;
import io.quarkiverse.mcp.server.ToolResponse;
import io.smallrye.mutiny.Uni;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/**
 * A gated tool that charges an order's seller and courier together and waits for both, collecting
 * every failure (Mutiny's {@code collectFailures}): the seller's card is declined at once (nothing
 * charged), the courier's charge reaches the provider (the local one of {@link
 * DownstreamTimeoutTools}) and its answer comes after the tool's deadline.
 */
public class MutinyCompositeTools {
  private static final HttpClient JDK = HttpClient.newHttpClient();

  @Tool(
      description = "Charges an order's seller and courier.",
      annotations = @Tool.Annotations(idempotentHint = true))
  @Idempotent
  public ToolResponse splitCharge(
      @ToolArg(name = "order_id") String orderId,
      @ToolArg(name = "idempotency_key", required = false) String idempotencyKey) {
    Uni<String> seller =
        Uni.createFrom().failure(new IllegalStateException("seller: card declined"));
    Uni<String> courier =
        Uni.createFrom()
            .completionStage(
                () ->
                    JDK.sendAsync(
                        HttpRequest.newBuilder(DownstreamTimeoutTools.provider(orderId))
                            .POST(HttpRequest.BodyPublishers.noBody())
                            .build(),
                        HttpResponse.BodyHandlers.ofString()))
            .map(HttpResponse::body)
            .ifNoItem()
            .after(Duration.ofMillis(DownstreamTimeoutTools.WAIT_MS))
            .fail(); // io.smallrye.mutiny.TimeoutException
    Uni.combine().all().unis(seller, courier).collectFailures().asTuple().await().indefinitely();
    return ToolResponse.success("charged " + orderId);
  }
}
