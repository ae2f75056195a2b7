package dev.mcpgate.jdbc;

/**
 * {@link RenewalFaultSuite} through MySQL's driver (Connector/J) on the MariaDB server: the
 * renewals' connect and socket timeouts as Connector/J reads them, and its errors when a renewal
 * connection is cut, silenced or killed.
 */
class ConnectorJRenewalFaultTest extends MariaDbRenewalFaultTest {

  @Override
  TestDatabases.Target target() {
    return TestDatabases.mariadbThroughConnectorJ();
  }
}
