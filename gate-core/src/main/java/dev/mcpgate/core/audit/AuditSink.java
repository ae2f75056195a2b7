package dev.mcpgate.core.audit;

/**
 * Where audit records go (a table, a topic). Called after each decision on the caller's thread: an
 * implementation must be fast (queue, then write) and must not throw; the MCP adapter logs and
 * counts what one throws anyway, and the decision stands.
 */
@FunctionalInterface
public interface AuditSink {
  /**
   * @param record one decision
   */
  void record(AuditRecord record);
}
