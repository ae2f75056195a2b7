package dev.mcpgate.examples;

import dev.mcpgate.mcp.TenantResolver;
import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.server.McpServerFeatures.SyncToolSpecification;
import java.util.List;
import java.util.UUID;

/**
 * The example server's parts (package-private in the examples module), opened to gate-mcp-client's
 * tests: its tools, its JSON mapper, and how often each tool's handler ran.
 */
public final class ExampleServerForTests implements AutoCloseable {
  private final ExampleServer server;

  /**
   * @param tenantFromHeader true to take the tenant from the transport context's "tenant" (the
   *     X-Tenant header over HTTP); false for the constant tenant of a stdio server
   */
  public ExampleServerForTests(boolean tenantFromHeader) {
    this.server =
        new ExampleServer(
            new ExampleServer.Config(
                "jdbc:h2:mem:client-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1",
                null,
                null,
                tenantFromHeader
                    ? TenantResolver.fromTransportContext("tenant")
                    : TenantResolver.fixed("local")));
  }

  /**
   * @return the server's tools, as {@code serve} serves them
   */
  public List<SyncToolSpecification> tools() {
    return server.tools();
  }

  /**
   * @return the server's JSON mapper (numbers read exactly)
   */
  public static McpJsonMapper json() {
    return Transports.JSON;
  }

  /**
   * @return how many times the tool's handler ran
   */
  public int executions(String tool) {
    return server.executions(tool);
  }

  /**
   * @return the ids of the refunds the payment provider accepted for the order
   */
  public List<String> refundIds(String orderId) {
    return server.externals.payments.refunds.stream()
        .filter(r -> r.orderId().equals(orderId))
        .map(Externals.Refund::refundId)
        .toList();
  }

  @Override
  public void close() {
    server.close();
  }
}
