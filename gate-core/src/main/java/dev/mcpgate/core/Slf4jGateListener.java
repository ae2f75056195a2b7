package dev.mcpgate.core;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Logs every decision through SLF4J, to the logger {@code dev.mcpgate.gate}: DEBUG for the
 * routine ones (fresh, replayed, completed, released), INFO for takeovers, in-flight refusals and
 * conflicts, WARN for unknown outcomes and lost leases, ERROR for failed completions.
 */
public final class Slf4jGateListener implements GateListener {
  private static final Logger LOG = LoggerFactory.getLogger("dev.mcpgate.gate");

  @Override
  public void onEvent(GateEvent e) {
    switch (e.type()) {
      case FRESH, REPLAYED, COMPLETED, RELEASED ->
          LOG.debug("{} {} attempt {}: {}", e.type(), e.id(), e.attempt(), e.message(), e.error());
      case TAKEOVER, IN_FLIGHT, CONFLICT ->
          LOG.info("{} {} attempt {}: {}", e.type(), e.id(), e.attempt(), e.message(), e.error());
      case OUTCOME_UNKNOWN, LEASE_LOST ->
          LOG.warn("{} {} attempt {}: {}", e.type(), e.id(), e.attempt(), e.message(), e.error());
      case COMPLETION_FAILED ->
          LOG.error("{} {} attempt {}: {}", e.type(), e.id(), e.attempt(), e.message(), e.error());
    }
  }
}
