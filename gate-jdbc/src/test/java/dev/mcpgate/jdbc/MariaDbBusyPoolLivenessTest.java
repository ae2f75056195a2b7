package dev.mcpgate.jdbc;

/** {@link BusyPoolLivenessContract} on a real MariaDB server. */
class MariaDbBusyPoolLivenessTest extends BusyPoolLivenessContract {

  @Override
  TestDatabases.Target target() {
    return TestDatabases.mariadb();
  }

  @Override
  String slowQuery() {
    return "SELECT SLEEP(3)";
  }
}
