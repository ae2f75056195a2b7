package dev.mcpgate.jdbc;

/**
 * {@link MariaDbMaxAllowedPacketEdgeTest} through MySQL's driver, Connector/J, which sends a byte
 * array as hex (two bytes each) and refuses a statement over the packet itself ("Packet for query
 * is too large"), told as the store unavailable before the check.
 */
class ConnectorJMaxAllowedPacketEdgeTest extends MariaDbMaxAllowedPacketEdgeTest {
  @Override
  TestDatabases.Target target() {
    return TestDatabases.mariadbThroughConnectorJ();
  }

  @Override
  long largestThatFits() {
    return packet / 2;
  }
}
