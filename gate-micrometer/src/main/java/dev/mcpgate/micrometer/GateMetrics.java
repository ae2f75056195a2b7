package dev.mcpgate.micrometer;

import static java.util.Objects.requireNonNull;

import dev.mcpgate.core.GateEvent;
import dev.mcpgate.core.GateListener;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;

/**
 * Counts the gate's decisions in Micrometer. Register it as a listener of the gate:
 *
 * <pre>{@code
 * IdempotencyGate.builder(MeteredStore.of(store, registry, "postgresql"))
 *     .listener(GateMetrics.of(registry, "postgresql"))
 *     .build();
 * }</pre>
 *
 * <ul>
 *   <li>{@code mcpgate.calls} (counter; tags {@code tool}, {@code outcome}, {@code key_source}
 *       ({@code argument}, {@code meta}, {@code natural}, {@code header}, or {@code none} when the
 *       caller did not say), {@code store}): one per call decision. Outcomes: {@code executed},
 *       {@code takeover} (executed after an earlier attempt's lease ran out), {@code replayed}, and
 *       {@code refused.conflict}, {@code refused.in_progress}, {@code refused.holder_unresponsive},
 *       {@code refused.outcome_unknown}, {@code refused.result_not_stored}; and for a call refused
 *       before the gate (no claim made): {@code rejected.tenant_unknown}, {@code
 *       rejected.tenant_invalid}, {@code rejected.forbidden}, {@code rejected.key_required}, {@code
 *       rejected.key_invalid}, {@code rejected.arguments_invalid}; and for a call the store could
 *       not claim, or that reached a closed gate (nothing ran): {@code failed.store_unavailable},
 *       {@code failed.gate_closed}.
 *   <li>{@code mcpgate.attempts.ended} (counter; tags {@code tool}, {@code result}, {@code store}):
 *       how an executed attempt's claim ended: {@code completed}, {@code released}, {@code
 *       marked_unknown}, {@code lease_lost}, {@code store_failed}, {@code result_not_stored}; one
 *       per event that ends or settles an attempt, so one attempt may count more than once (a
 *       refused result and a refused fence, then the fence written late; a lost lease told by a
 *       renewal and again at completion).
 *   <li>{@code mcpgate.inflight.wait} (timer; tags {@code tool}, {@code outcome}, {@code store}):
 *       how long a call waited on another attempt with the same key, recorded for the calls that
 *       waited.
 *   <li>{@code mcpgate.lease.renewals} (counter; tags {@code result} = {@code renewed} or {@code
 *       failed}, {@code store}).
 * </ul>
 *
 * No tag holds a tenant, a key or an argument: their values are unbounded and may be personal.
 */
public final class GateMetrics implements GateListener {
  private final MeterRegistry registry;
  private final String store;

  private GateMetrics(MeterRegistry registry, String store) {
    this.registry = registry;
    this.store = store;
  }

  /**
   * @param registry where the meters go
   * @param store the store's name for the {@code store} tag ({@code postgresql}, {@code redis})
   * @return the listener
   */
  public static GateMetrics of(MeterRegistry registry, String store) {
    return new GateMetrics(
        requireNonNull(registry, "registry must not be null"),
        requireNonNull(store, "store must not be null"));
  }

  @Override
  public void onEvent(GateEvent e) {
    String tool = e.tool();
    String outcome = e.outcome();
    if (outcome != null) {
      counter(
              "mcpgate.calls",
              "tool",
              tool,
              "outcome",
              outcome,
              "key_source",
              e.keySource() == null ? "none" : e.keySource())
          .increment();
      if (!e.waited().isZero()) {
        Timer.builder("mcpgate.inflight.wait")
            .tags("tool", tool, "outcome", outcome)
            .tag("store", store)
            .register(registry)
            .record(e.waited());
      }
    } else if (e.attemptResult() != null) {
      counter("mcpgate.attempts.ended", "tool", tool, "result", e.attemptResult()).increment();
    } else {
      counter("mcpgate.lease.renewals", "result", e.renewalResult()).increment();
    }
  }

  private Counter counter(String name, String... tags) {
    return Counter.builder(name).tags(tags).tag("store", store).register(registry);
  }
}
