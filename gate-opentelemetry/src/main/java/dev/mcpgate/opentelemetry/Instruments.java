package dev.mcpgate.opentelemetry;

import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.metrics.Meter;
import io.opentelemetry.api.metrics.MeterBuilder;
import java.util.List;

/** The instrumentation scope, the attribute keys and the bucket advice the instruments share. */
final class Instruments {
  private Instruments() {}

  /** The instrumentation scope of every instrument of this module. */
  static final String SCOPE = "dev.mcpgate.opentelemetry";

  static final AttributeKey<String> TOOL = AttributeKey.stringKey("tool");
  static final AttributeKey<String> OUTCOME = AttributeKey.stringKey("outcome");
  static final AttributeKey<String> KEY_SOURCE = AttributeKey.stringKey("key_source");
  static final AttributeKey<String> RESULT = AttributeKey.stringKey("result");
  static final AttributeKey<String> STORE = AttributeKey.stringKey("store");
  static final AttributeKey<String> OPERATION = AttributeKey.stringKey("operation");

  /**
   * Bucket boundaries, in seconds, for the durations: from half a millisecond (a claim on Redis or
   * in memory) to a minute (a long in-flight wait). The SDK's default buckets are made for
   * milliseconds and would put every store round trip in the first one.
   */
  static final List<Double> SECONDS_BUCKETS =
      List.of(
          0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5,
          5.0, 7.5, 10.0, 30.0, 60.0);

  static Meter meter(OpenTelemetry openTelemetry) {
    MeterBuilder builder = openTelemetry.getMeterProvider().meterBuilder(SCOPE);
    String version = Instruments.class.getPackage().getImplementationVersion();
    if (version != null) {
      builder.setInstrumentationVersion(version);
    }
    return builder.build();
  }

  static double seconds(long nanos) {
    return nanos / 1_000_000_000.0;
  }
}
