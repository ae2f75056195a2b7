package dev.mcpgate.benchmarks.throughput;

import javax.sql.DataSource;
import org.apache.camel.impl.DefaultCamelContext;
import org.apache.camel.processor.idempotent.jdbc.JdbcMessageIdRepository;

/**
 * Apache Camel's {@code JdbcMessageIdRepository}: {@code add} inserts the message id (a duplicate
 * is refused), {@code confirm} marks it done; a replay is an {@code add} that returns false. It
 * stores no result and checks no arguments: a peer for the claim's cost only.
 */
final class CamelRepository implements Contender {
  private DefaultCamelContext context;
  private JdbcMessageIdRepository repository;

  @Override
  public String name() {
    return "Camel JdbcMessageIdRepository";
  }

  @Override
  public void reset(DataSource dataSource, Database database) throws Exception {
    Sql.execute(
        dataSource,
        "DROP TABLE IF EXISTS CAMEL_MESSAGEPROCESSED",
        "CREATE TABLE CAMEL_MESSAGEPROCESSED (processorName VARCHAR(255), messageId VARCHAR(100),"
            + " createdAt TIMESTAMP, PRIMARY KEY (processorName, messageId))");
    if (context == null) {
      context = new DefaultCamelContext();
      context.start();
    }
    if (repository != null) {
      repository.stop();
    }
    repository = new JdbcMessageIdRepository(dataSource, "refund_order");
    repository.setCreateTableIfNotExists(false);
    repository.start();
  }

  @Override
  public void fresh(String key) {
    Sql.expect(repository.add(key), "duplicate", key);
    repository.confirm(key);
  }

  @Override
  public void replay(String key) {
    Sql.expect(!repository.add(key), "not deduplicated", key);
  }
}
