package dev.mcpgate.benchmarks.throughput;

import javax.sql.DataSource;
import org.springframework.integration.jdbc.metadata.JdbcMetadataStore;

/**
 * Spring Integration's {@code JdbcMetadataStore} as an idempotent receiver's store: {@code
 * putIfAbsent} claims the key, {@code replace} stores a 64-byte result; a replay is a {@code
 * putIfAbsent} that finds the key.
 */
final class SpringMetadataStore implements Contender {
  private static final String RESULT = "COMPLETED:" + "x".repeat(64);

  private JdbcMetadataStore store;

  @Override
  public String name() {
    return "Spring Integration JdbcMetadataStore";
  }

  @Override
  public void reset(DataSource dataSource, Database database) throws Exception {
    Sql.execute(
        dataSource,
        "DROP TABLE IF EXISTS INT_METADATA_STORE",
        "CREATE TABLE INT_METADATA_STORE (METADATA_KEY VARCHAR(255) NOT NULL, METADATA_VALUE"
            + " VARCHAR(4000), REGION VARCHAR(100) NOT NULL, PRIMARY KEY (METADATA_KEY, REGION))");
    store = new JdbcMetadataStore(dataSource);
    store.afterPropertiesSet();
  }

  @Override
  public void fresh(String key) {
    Sql.expect(store.putIfAbsent(key, "IN_PROGRESS") == null, "duplicate", key);
    Sql.expect(store.replace(key, "IN_PROGRESS", RESULT), "lost", key);
  }

  @Override
  public void replay(String key) {
    Sql.expect(store.putIfAbsent(key, "IN_PROGRESS") != null, "not deduplicated", key);
  }
}
