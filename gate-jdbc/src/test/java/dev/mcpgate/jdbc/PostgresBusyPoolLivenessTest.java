package dev.mcpgate.jdbc;

/** {@link BusyPoolLivenessContract} on a real PostgreSQL server. */
class PostgresBusyPoolLivenessTest extends BusyPoolLivenessContract {

  @Override
  TestDatabases.Target target() {
    return TestDatabases.postgres();
  }

  @Override
  String slowQuery() {
    return "SELECT pg_sleep(3)";
  }
}
