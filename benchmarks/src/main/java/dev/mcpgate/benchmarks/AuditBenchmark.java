package dev.mcpgate.benchmarks;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.mcpgate.core.IdempotencyGate;
import dev.mcpgate.core.memory.InMemoryIdempotencyStore;
import dev.mcpgate.jdbc.JdbcAuditSink;
import dev.mcpgate.mcp.McpGate;
import dev.mcpgate.mcp.TenantResolver;
import dev.mcpgate.mcp.ToolPolicy;
import io.modelcontextprotocol.common.McpTransportContext;
import io.modelcontextprotocol.server.McpStatelessServerFeatures;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What the audit trail adds to a replayed call through the MCP adapter (the in-memory store, so
 * that the audit's share is not hidden behind a database claim): no audit, or the JDBC audit sink
 * on an in-memory H2 table. The caller's cost is the record's making (the argument hash, the
 * redaction) and a queue insert; the writer thread's inserts are off the caller's path.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
@State(Scope.Thread)
public class AuditBenchmark {
  @Param({"none", "jdbc"})
  public String audit;

  private HikariDataSource h2;
  private JdbcAuditSink sink;
  private McpStatelessServerFeatures.SyncToolSpecification tool;
  private CallToolRequest request;
  private final McpTransportContext context = McpTransportContext.create(Map.of("tenant", "acme"));

  @Setup(Level.Trial)
  public void setUp() {
    McpGate.Builder builder =
        McpGate.builder(IdempotencyGate.builder(InMemoryIdempotencyStore.create()).build())
            .tenantResolver(TenantResolver.fromTransportContext("tenant"));
    if (audit.equals("jdbc")) {
      HikariConfig config = new HikariConfig();
      config.setJdbcUrl("jdbc:h2:mem:audit-bench;DB_CLOSE_DELAY=-1");
      h2 = new HikariDataSource(config);
      sink = JdbcAuditSink.builder(h2).createSchemaIfMissing(true).queueCapacity(100_000).build();
      builder.audit(sink);
    }
    McpSchema.Tool refund =
        McpSchema.Tool.builder("refund_order", Map.of("type", "object", "properties", Map.of()))
            .build();
    tool =
        builder
            .build()
            .gate(
                new McpStatelessServerFeatures.SyncToolSpecification(
                    refund,
                    (ctx, req) -> CallToolResult.builder().addTextContent("refund re_1").build()),
                ToolPolicy.defaults());
    Map<String, Object> args = new HashMap<>(Payloads.ofApproximateBytes(512, 3));
    args.put("idempotency_key", "k-1");
    request = new CallToolRequest("refund_order", args);
    tool.callHandler().apply(context, request);
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    if (sink != null) {
      sink.close();
      System.out.printf(
          "%naudit sink: %d written, %d dropped, %d failed%n",
          sink.written(), sink.dropped(), sink.failed());
      h2.close();
    }
  }

  @Benchmark
  public CallToolResult replay() {
    return tool.callHandler().apply(context, request);
  }
}
