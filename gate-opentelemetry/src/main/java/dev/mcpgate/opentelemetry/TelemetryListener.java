package dev.mcpgate.opentelemetry;

import static dev.mcpgate.opentelemetry.Instruments.KEY_SOURCE;
import static dev.mcpgate.opentelemetry.Instruments.OUTCOME;
import static dev.mcpgate.opentelemetry.Instruments.RESULT;
import static dev.mcpgate.opentelemetry.Instruments.STORE;
import static dev.mcpgate.opentelemetry.Instruments.TOOL;

import dev.mcpgate.core.GateEvent;
import dev.mcpgate.core.GateListener;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.metrics.DoubleHistogram;
import io.opentelemetry.api.metrics.LongCounter;
import io.opentelemetry.api.metrics.Meter;
import io.opentelemetry.api.trace.Span;

/**
 * Records each gate event in the instruments, and a call's decision on the current span. Only the
 * tool's name, the vocabularies of {@link Outcomes} and {@link GateEvent.Type}, the key's source,
 * the store's name and the attempt number go into attributes: never the tenant, the key, an
 * argument or a token (fingerprint).
 */
final class TelemetryListener implements GateListener {
  // the MCP semantic conventions' names
  static final AttributeKey<String> MCP_METHOD_NAME = AttributeKey.stringKey("mcp.method.name");
  static final AttributeKey<String> GEN_AI_TOOL_NAME = AttributeKey.stringKey("gen_ai.tool.name");

  /** The only MCP method the gate decides. */
  static final String TOOLS_CALL = "tools/call";

  // ours
  static final AttributeKey<String> DECISION = AttributeKey.stringKey("mcpgate.decision");
  static final AttributeKey<Boolean> RAN = AttributeKey.booleanKey("mcpgate.ran");
  static final AttributeKey<String> SPAN_STORE = AttributeKey.stringKey("mcpgate.store");
  static final AttributeKey<String> SPAN_KEY_SOURCE = AttributeKey.stringKey("mcpgate.key_source");
  static final AttributeKey<Long> ATTEMPT = AttributeKey.longKey("mcpgate.attempt");

  private final String store;
  private final LongCounter calls;
  private final LongCounter attemptsEnded;
  private final LongCounter renewals;
  private final DoubleHistogram inflightWait;

  TelemetryListener(OpenTelemetry openTelemetry, String store) {
    this.store = store;
    Meter meter = Instruments.meter(openTelemetry);
    calls =
        meter
            .counterBuilder("mcpgate.calls")
            .setUnit("{call}")
            .setDescription("Call decisions of the gate, by tool, outcome and key source")
            .build();
    attemptsEnded =
        meter
            .counterBuilder("mcpgate.attempts.ended")
            .setUnit("{attempt}")
            .setDescription("How the claims of executed attempts ended")
            .build();
    renewals =
        meter
            .counterBuilder("mcpgate.lease.renewals")
            .setUnit("{renewal}")
            .setDescription("Lease renewals of running actions")
            .build();
    inflightWait =
        meter
            .histogramBuilder("mcpgate.inflight.wait")
            .setUnit("s")
            .setDescription("How long a call waited on another attempt with the same key")
            .setExplicitBucketBoundariesAdvice(Instruments.SECONDS_BUCKETS)
            .build();
  }

  @Override
  public void onEvent(GateEvent e) {
    String tool = e.tool();
    String outcome = e.outcome();
    if (outcome != null) {
      calls.add(
          1,
          Attributes.of(TOOL, tool, OUTCOME, outcome, KEY_SOURCE, KeySources.of(e), STORE, store));
      if (!e.waited().isZero()) {
        inflightWait.record(
            Instruments.seconds(e.waited().toNanos()),
            Attributes.of(TOOL, tool, OUTCOME, outcome, STORE, store));
      }
      decide(Span.current(), e, tool, outcome);
    } else if (e.attemptResult() != null) {
      attemptsEnded.add(1, Attributes.of(TOOL, tool, RESULT, e.attemptResult(), STORE, store));
    } else {
      renewals.add(1, Attributes.of(RESULT, e.renewalResult(), STORE, store));
    }
  }

  /** Adds the decision to the span the call runs in (the MCP server's tool-call span). */
  private void decide(Span span, GateEvent e, String tool, String outcome) {
    if (!span.isRecording()) {
      return; // no span, or one that is not sampled
    }
    span.setAttribute(MCP_METHOD_NAME, TOOLS_CALL);
    span.setAttribute(GEN_AI_TOOL_NAME, tool);
    span.setAttribute(DECISION, outcome);
    span.setAttribute(RAN, e.type() == GateEvent.Type.ACQUIRED);
    span.setAttribute(SPAN_STORE, store);
    span.setAttribute(SPAN_KEY_SOURCE, KeySources.of(e));
    if (e.attempt() > 0) {
      span.setAttribute(ATTEMPT, (long) e.attempt());
    }
  }
}
