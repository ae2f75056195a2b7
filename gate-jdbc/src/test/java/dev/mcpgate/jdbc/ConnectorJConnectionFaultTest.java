package dev.mcpgate.jdbc;

/**
 * Connection faults through MySQL's driver (Connector/J) on the MariaDB server: what the store
 * tells the caller when Connector/J reports a killed connection.
 */
class ConnectorJConnectionFaultTest extends MariaDbConnectionFaultTest {

  @Override
  TestDatabases.Target target() {
    return TestDatabases.mariadbThroughConnectorJ();
  }
}
