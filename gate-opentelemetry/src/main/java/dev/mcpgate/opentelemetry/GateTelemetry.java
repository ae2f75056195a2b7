package dev.mcpgate.opentelemetry;

import static java.util.Objects.requireNonNull;

import dev.mcpgate.core.GateListener;
import dev.mcpgate.core.spi.IdempotencyStore;
import io.opentelemetry.api.OpenTelemetry;

/**
 * OpenTelemetry for the gate, on the OpenTelemetry API alone (no Micrometer): the same metrics as
 * gate-micrometer, and the decision as attributes on the current span. Wire both:
 *
 * <pre>{@code
 * IdempotencyGate gate = IdempotencyGate.builder(
 *         GateTelemetry.store(store, openTelemetry, "postgresql"))
 *     .listener(GateTelemetry.listener(openTelemetry, "postgresql"))
 *     .build();
 * }</pre>
 *
 * <p>Metrics (instrumentation scope {@code dev.mcpgate.opentelemetry}; attribute keys and values as
 * gate-micrometer's tags, so that one dashboard reads both):
 *
 * <ul>
 *   <li>{@code mcpgate.calls} (counter, {@code {call}}; {@code tool}, {@code outcome}, {@code
 *       key_source}, {@code store}): one per call decision. Outcomes: {@code executed}, {@code
 *       takeover}, {@code replayed}, {@code refused.conflict}, {@code refused.in_progress}, {@code
 *       refused.holder_unresponsive}, {@code refused.outcome_unknown}, {@code
 *       refused.result_not_stored}, and for a call refused before the gate (no claim made) {@code
 *       rejected.tenant_unknown}, {@code rejected.tenant_invalid}, {@code rejected.forbidden},
 *       {@code rejected.key_required}, {@code rejected.key_invalid}, {@code
 *       rejected.arguments_invalid}, and for a call the store could not claim {@code
 *       failed.store_unavailable} (or that reached a closed gate, {@code failed.gate_closed});
 *       {@code key_source} is {@code argument}, {@code meta}, {@code natural}, {@code header}, or
 *       {@code none} when the caller did not say.
 *   <li>{@code mcpgate.attempts.ended} (counter, {@code {attempt}}; {@code tool}, {@code result},
 *       {@code store}): how an executed attempt's claim ended: {@code completed}, {@code released},
 *       {@code marked_unknown}, {@code lease_lost}, {@code store_failed}, {@code
 *       result_not_stored}.
 *   <li>{@code mcpgate.inflight.wait} (histogram, seconds; {@code tool}, {@code outcome}, {@code
 *       store}): how long a call waited on another attempt with the same key, for the calls that
 *       waited.
 *   <li>{@code mcpgate.lease.renewals} (counter, {@code {renewal}}; {@code result} = {@code
 *       renewed} or {@code failed}, {@code store}).
 *   <li>{@code mcpgate.store.operations} (histogram, seconds; {@code operation} = {@code claim},
 *       {@code complete}, {@code release}, {@code extend}, {@code extend_many}, {@code
 *       mark_unknown}, {@code find}, {@code purge}; {@code outcome} = {@code success} or {@code
 *       error}; {@code store}): each store round trip, from {@link #store}.
 * </ul>
 *
 * <p>Span attributes, set on a call decision on {@link io.opentelemetry.api.trace.Span#current()}
 * (the MCP server's tool-call span) when it is recording; no span of its own is started:
 *
 * <ul>
 *   <li>{@code mcp.method.name} = {@code tools/call} and {@code gen_ai.tool.name} = the tool (the
 *       MCP semantic conventions' names; the same values an MCP instrumentation sets);
 *   <li>{@code mcpgate.decision}: the outcome, as in {@code mcpgate.calls} ({@code rejected.*} for
 *       a call refused before the gate);
 *   <li>{@code mcpgate.ran} (boolean): true when the action runs in this call;
 *   <li>{@code mcpgate.store}, {@code mcpgate.key_source} ({@code none} if untold);
 *   <li>{@code mcpgate.attempt} (long): the attempt that runs, or whose result is replayed; absent
 *       when no attempt is concerned (a conflict, a rejection).
 * </ul>
 *
 * <p>No attribute holds a tenant, a key, an argument or a lease token: their values are unbounded
 * and may be personal.
 */
public final class GateTelemetry {
  private GateTelemetry() {}

  /**
   * @param openTelemetry whose meter provider gets the instruments (the span is the current one,
   *     whichever tracer provider made it)
   * @param store the store's name for the {@code store} attribute ({@code postgresql}, {@code
   *     redis})
   * @return a listener for {@code IdempotencyGate.Builder#listener}; thread-safe
   * @throws NullPointerException if an argument is null
   */
  public static GateListener listener(OpenTelemetry openTelemetry, String store) {
    return new TelemetryListener(
        requireNonNull(openTelemetry, "openTelemetry must not be null"),
        requireNonNull(store, "store must not be null"));
  }

  /**
   * @param delegate the store to time
   * @param openTelemetry whose meter provider gets {@code mcpgate.store.operations}
   * @param store the store's name for the {@code store} attribute
   * @return the timed store, which passes every call to {@code delegate}
   * @throws NullPointerException if an argument is null
   */
  public static IdempotencyStore store(
      IdempotencyStore delegate, OpenTelemetry openTelemetry, String store) {
    return new TimedStore(
        requireNonNull(delegate, "delegate must not be null"),
        requireNonNull(openTelemetry, "openTelemetry must not be null"),
        requireNonNull(store, "store must not be null"));
  }
}
