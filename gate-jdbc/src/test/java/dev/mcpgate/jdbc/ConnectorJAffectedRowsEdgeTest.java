package dev.mcpgate.jdbc;

/** {@link MariaDbAffectedRowsEdgeTest} through MySQL's driver, Connector/J. */
class ConnectorJAffectedRowsEdgeTest extends MariaDbAffectedRowsEdgeTest {
  @Override
  TestDatabases.Target target() {
    return TestDatabases.mariadbThroughConnectorJ();
  }
}
