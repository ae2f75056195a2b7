package dev.mcpgate.redis;

import dev.mcpgate.core.StoreUnavailableException;
import io.lettuce.core.RedisException;
import java.util.function.Function;

/**
 * The store's connection, opened by the first command: a store can be built while Redis is down (a
 * service restarting during an outage), and a connection that failed is tried again by the next
 * command. A command's failure is the store's {@link StoreUnavailableException}.
 */
final class LazyLink {
  private final Connector connector;
  private final Object connecting = new Object();
  private volatile RedisLink link;

  LazyLink(Connector connector) {
    this.connector = connector;
  }

  private RedisLink link() {
    RedisLink l = link;
    if (l != null) {
      return l;
    }
    synchronized (connecting) {
      if (link == null) {
        try {
          link = connector.connect();
        } catch (RedisException e) {
          throw new StoreUnavailableException("could not connect to Redis: " + e.getMessage(), e);
        }
      }
      return link;
    }
  }

  <T> T call(String what, Function<RedisLink, T> command) {
    try {
      return command.apply(link());
    } catch (RedisException e) {
      throw new StoreUnavailableException("could not " + what + " in Redis: " + e.getMessage(), e);
    }
  }

  /** Closes the connection, if one was opened. */
  void close() {
    RedisLink l = link;
    if (l != null) {
      l.close();
    }
  }
}
