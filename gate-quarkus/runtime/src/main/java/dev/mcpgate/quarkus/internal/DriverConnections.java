package dev.mcpgate.quarkus.internal;

import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.Properties;
import java.util.logging.Logger;
import javax.sql.DataSource;

/**
 * Connections straight from the JDBC driver, with the default data source's URL and credentials:
 * where the store opens its lease-renewal connection, so that renewals never wait on the Agroal
 * pool that the tools may hold in full.
 */
final class DriverConnections implements DataSource {
  private final String url;
  private final Properties credentials = new Properties();

  DriverConnections(String url, String user, String password) {
    this.url = url;
    if (user != null) {
      credentials.setProperty("user", user);
    }
    if (password != null) {
      credentials.setProperty("password", password);
    }
  }

  @Override
  public Connection getConnection() throws SQLException {
    return DriverManager.getConnection(url, credentials);
  }

  @Override
  public Connection getConnection(String username, String password) throws SQLException {
    return DriverManager.getConnection(url, username, password);
  }

  @Override
  public PrintWriter getLogWriter() {
    return null;
  }

  @Override
  public void setLogWriter(PrintWriter out) {}

  @Override
  public void setLoginTimeout(int seconds) {}

  @Override
  public int getLoginTimeout() {
    return 0;
  }

  @Override
  public Logger getParentLogger() throws SQLFeatureNotSupportedException {
    throw new SQLFeatureNotSupportedException();
  }

  @Override
  public <T> T unwrap(Class<T> iface) throws SQLException {
    throw new SQLException("not a wrapper");
  }

  @Override
  public boolean isWrapperFor(Class<?> iface) {
    return false;
  }

  @Override
  public String toString() {
    return "the JDBC driver at the default data source's URL";
  }
}
