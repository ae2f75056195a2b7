package dev.mcpgate.cache;

import dev.mcpgate.core.spi.IdempotencyStore;
import dev.mcpgate.jdbc.JdbcIdempotencyStore;
import dev.mcpgate.store.tck.IdempotencyStoreContract;

/**
 * The store contract on the JDBC store (embedded H2) behind a replay cache, in real time: the
 * database's clock against this process's monotonic clock, as in production.
 */
class H2ReplayCacheContractTest extends IdempotencyStoreContract {
  private JdbcIdempotencyStore jdbc;

  @Override
  protected IdempotencyStore createStore() {
    jdbc = H2.store();
    return ReplayCache.wrap(jdbc, 1_000);
  }

  @Override
  protected void closeStore() {
    jdbc.close();
  }
}
