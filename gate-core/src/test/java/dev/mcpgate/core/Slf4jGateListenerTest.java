package dev.mcpgate.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.EnumMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.slf4j.event.Level;

/** The level each event is logged at, as the listener's Javadoc promises. */
class Slf4jGateListenerTest {
  private static final ClaimId ID = new ClaimId("acme", "refund_order", "k");

  @Test
  void eachEventIsLoggedAtItsLevel() {
    Map<GateEvent.Type, Level> expected = new EnumMap<>(GateEvent.Type.class);
    expected.put(GateEvent.Type.ACQUIRED, Level.DEBUG);
    expected.put(GateEvent.Type.REPLAYED, Level.DEBUG);
    expected.put(GateEvent.Type.COMPLETED, Level.DEBUG);
    expected.put(GateEvent.Type.RELEASED, Level.DEBUG);
    expected.put(GateEvent.Type.REFUSED, Level.INFO);
    expected.put(GateEvent.Type.REJECTED, Level.INFO);
    expected.put(GateEvent.Type.LEASE_RENEWED, Level.TRACE);
    expected.put(GateEvent.Type.FAILED, Level.WARN);
    expected.put(GateEvent.Type.MARKED_UNKNOWN, Level.WARN);
    expected.put(GateEvent.Type.LEASE_LOST, Level.WARN);
    expected.put(GateEvent.Type.LEASE_RENEWAL_FAILED, Level.WARN);
    expected.put(GateEvent.Type.RESULT_NOT_STORED, Level.WARN);
    expected.put(GateEvent.Type.STORE_FAILED, Level.ERROR);
    assertThat(expected.keySet())
        .as("every type is listed")
        .hasSize(GateEvent.Type.values().length);

    expected.forEach(
        (type, level) ->
            assertThat(Slf4jGateListener.levelOf(event(type, 1))).as("%s", type).isEqualTo(level));
    assertThat(Slf4jGateListener.levelOf(event(GateEvent.Type.ACQUIRED, 2)))
        .as("a takeover")
        .isEqualTo(Level.INFO);
  }

  @Test
  void everyEventIsLoggedWithoutFailing() {
    Slf4jGateListener listener = new Slf4jGateListener();
    for (GateEvent.Type type : GateEvent.Type.values()) {
      listener.onEvent(event(type, 1));
    }
  }

  @Test
  void anEventOfNoAttemptNamesNone() {
    assertThat(Slf4jGateListener.attemptOf(event(GateEvent.Type.ACQUIRED, 2)))
        .isEqualTo(" attempt 2 [fp]");
    assertThat(Slf4jGateListener.attemptOf(event(GateEvent.Type.REFUSED, 0)))
        .as("a conflict concerns no attempt: not 'attempt 0 [null]'")
        .isEmpty();
  }

  private static GateEvent event(GateEvent.Type type, int attempt) {
    if (type == GateEvent.Type.REJECTED) {
      return GateEvent.rejected(
          "refund_order", RejectionReason.KEY_REQUIRED, "m", Instant.EPOCH, null);
    }
    return new GateEvent(
        type,
        ID,
        type == GateEvent.Type.FAILED ? 0 : attempt,
        "fp",
        type == GateEvent.Type.REFUSED ? RefusalReason.CONFLICT : null,
        "m",
        type == GateEvent.Type.STORE_FAILED || type == GateEvent.Type.FAILED
            ? new IllegalStateException("store down")
            : null,
        Instant.EPOCH,
        null,
        Duration.ZERO,
        "refund_order",
        null,
        type == GateEvent.Type.FAILED ? FailureReason.STORE_UNAVAILABLE : null);
  }
}
