package dev.mcpgate.redis;

import io.lettuce.core.RedisException;
import io.lettuce.core.api.sync.RedisCommands;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The store's checks of each node for {@link RedisIdempotencyStore#verify()}: that it answers, and
 * whether it may evict claims (its {@code maxmemory-policy}, read and judged).
 */
final class NodeChecks {
  private static final Logger LOG = LoggerFactory.getLogger(RedisIdempotencyStore.class);
  private static final String MAXMEMORY_POLICY = "maxmemory-policy";

  private NodeChecks() {}

  /** Reaches every node (every master of a cluster), and logs each one's eviction warning. */
  static void checkEveryNode(LazyLink link) {
    Map<String, RedisCommands<byte[], byte[]>> nodes =
        link.call("reach every node", RedisLink::nodes);
    nodes.forEach(
        (node, redis) -> {
          link.call("reach " + where(node), l -> redis.ping());
          if (node.isEmpty()) {
            refuseAClusterNode(clusterInfo(redis));
          }
          evictionWarning(node, redis).ifPresent(LOG::warn);
        });
  }

  private static String clusterInfo(RedisCommands<byte[], byte[]> redis) {
    try {
      return redis.info("cluster");
    } catch (RedisException e) {
      LOG.info("could not read the server's INFO cluster ({}); not checked", e.getMessage());
      return null;
    }
  }

  /**
   * A store built for one server on a node of a Redis Cluster would keep its claims under keys
   * without the cluster's hash tags: the claims of keys that another node serves fail, and a
   * replica built for the cluster, with the tagged layout, never sees this one's claims, so a retry
   * there runs again.
   *
   * @param info the server's {@code INFO cluster} section
   * @throws IllegalStateException when the server is a cluster node
   */
  static void refuseAClusterNode(String info) {
    if (info != null && info.lines().anyMatch(line -> line.strip().equals("cluster_enabled:1"))) {
      throw new IllegalStateException(
          "this Redis is a node of a Redis Cluster (cluster_enabled:1), and the store was built"
              + " for one server: build it with RedisIdempotencyStore.clusterBuilder (the Spring"
              + " Boot starter and gate-quarkus: mcpgate.redis.cluster=true). On one server's key"
              + " layout, claims of keys another node serves fail, and a store built for the"
              + " cluster does not see this one's claims");
    }
  }

  private static String where(String node) {
    return node.isEmpty() ? "the server" : "the cluster master " + node;
  }

  /**
   * Reads one node's {@code maxmemory-policy}.
   *
   * @return the warning {@link RedisIdempotencyStore#verify()} logs, or empty when the policy is
   *     {@code noeviction} or cannot be read (a managed Redis may refuse {@code CONFIG GET}; that
   *     is logged at INFO)
   */
  static Optional<String> evictionWarning(String node, RedisCommands<byte[], byte[]> redis) {
    String policy;
    try {
      policy = redis.configGet(MAXMEMORY_POLICY).get(MAXMEMORY_POLICY);
    } catch (RedisException e) {
      LOG.info(
          "could not read {}'s {} ({}); make sure it is noeviction, or Redis may evict"
              + " claims under memory pressure",
          node.isEmpty() ? "Redis" : node,
          MAXMEMORY_POLICY,
          e.getMessage());
      return Optional.empty();
    }
    String warning = evictionWarning(policy);
    return Optional.ofNullable(
        warning == null || node.isEmpty() ? warning : "Cluster master " + node + ": " + warning);
  }

  /**
   * @param policy a {@code maxmemory-policy} value
   * @return the warning for it, or null for {@code noeviction} (and an unknown, null value)
   */
  static String evictionWarning(String policy) {
    if (policy == null || policy.equalsIgnoreCase("noeviction")) {
      return null;
    }
    String which =
        policy.toLowerCase(Locale.ROOT).startsWith("volatile-")
            ? " (claim keys carry a TTL, so volatile-* policies evict them too)"
            : "";
    return "Redis "
        + MAXMEMORY_POLICY
        + " is "
        + policy
        + which
        + ": under memory pressure"
        + " Redis may evict claims, and a retry of an evicted claim runs its action again."
        + " Set "
        + MAXMEMORY_POLICY
        + " noeviction on the server that holds claims"
        + " (docs/stores.md, Redis: Memory)";
  }
}
