package dev.mcpgate.jdbc;

import java.lang.reflect.Method;
import java.sql.Connection;
import java.sql.Driver;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Properties;
import java.util.Set;
import java.util.function.Supplier;
import javax.sql.DataSource;

/**
 * Where the store's renewal connections come from: never the tools' pool when that can be helped,
 * since a pool the tools hold in full would make a reopened renewal connection wait, and every
 * lease lapse meanwhile. In order:
 *
 * <ol>
 *   <li>the source the builder was given ({@code renewalConnections});
 *   <li>for a HikariCP pool, the driver itself, with the pool's URL, user, password, driver
 *       properties, schema, catalog and connection init SQL, and connect and socket timeouts of the
 *       try's deadline; or the unpooled {@code DataSource} the pool wraps (given to it, or made by
 *       it from {@code dataSourceClassName}), with the pool's user, password, schema, catalog and
 *       init SQL;
 *   <li>a data source that opens a new connection on every call (a driver's own, such as {@code
 *       PGSimpleDataSource}): itself;
 *   <li>otherwise the pool, which the store says at setup, with the fix.
 * </ol>
 *
 * HikariCP is read through its public getters by reflection, so that gate-jdbc does not depend on
 * it.
 */
final class RenewalSource {
  private static final String HIKARI = "com.zaxxer.hikari.HikariDataSource";

  /** Data sources that open a new physical connection on every call. */
  private static final Set<String> UNPOOLED =
      Set.of(
          "org.postgresql.ds.PGSimpleDataSource",
          "org.mariadb.jdbc.MariaDbDataSource",
          "com.mysql.cj.jdbc.MysqlDataSource",
          "org.h2.jdbcx.JdbcDataSource",
          "org.springframework.jdbc.datasource.DriverManagerDataSource",
          "org.springframework.jdbc.datasource.SimpleDriverDataSource");

  /** Opens one connection for renewals. */
  @FunctionalInterface
  interface Opener {
    /**
     * @param within the try's deadline: opening should not take longer
     */
    Connection open(Duration within) throws SQLException;
  }

  private final Opener opener;
  private final String description;
  private final boolean sharesPool;

  private RenewalSource(Opener opener, String description, boolean sharesPool) {
    this.opener = opener;
    this.description = description;
    this.sharesPool = sharesPool;
  }

  /**
   * @param pool the store's data source, which the tools use
   * @param given the builder's {@code renewalConnections}, or null
   * @param driver the builder's {@code renewalConnectionsFromDriver}, or null
   */
  static RenewalSource choose(DataSource pool, DataSource given, RenewalSource driver) {
    if (driver != null) {
      return driver;
    }
    if (given != null) {
      return new RenewalSource(
          within -> given.getConnection(),
          "their own data source (" + given.getClass().getName() + ")",
          false);
    }
    if (isA(pool.getClass(), HIKARI)) {
      RenewalSource fromHikari = fromHikari(pool);
      if (fromHikari != null) {
        return fromHikari;
      }
    }
    if (UNPOOLED.contains(pool.getClass().getName())) {
      return new RenewalSource(
          within -> pool.getConnection(),
          "the data source itself (" + pool.getClass().getName() + ", which does not pool)",
          false);
    }
    return new RenewalSource(
        within -> pool.getConnection(),
        "the tools' data source ("
            + pool.getClass().getName()
            + "), a pool the store cannot see past: one connection is kept out of it while leases"
            + " are renewed, and after a failure the next is borrowed from it, waiting while the"
            + " tools hold every connection; give the store a source of its own with"
            + " renewalConnections(..) (an unpooled DataSource of the driver) or"
            + " renewalConnectionsFromDriver(url, properties)",
        true);
  }

  Connection open(Duration within) throws SQLException {
    return opener.open(within);
  }

  /**
   * @return what the renewals use, for the setup's log line
   */
  String description() {
    return description;
  }

  /**
   * @return true when the renewals borrow from the tools' pool
   */
  boolean sharesPool() {
    return sharesPool;
  }

  private static RenewalSource fromHikari(DataSource pool) {
    try {
      // what the pool sets on each of its connections, so that the table resolves as it does
      String schema = (String) getter(pool, "getSchema");
      String catalog = (String) getter(pool, "getCatalog");
      String initSql = (String) getter(pool, "getConnectionInitSql");
      Object wrapped = getter(pool, "getDataSource");
      if (wrapped instanceof DataSource raw) {
        // as the pool opens its own: with the pool's user and password when it has a user
        String user = (String) getter(pool, "getUsername");
        String password = (String) getter(pool, "getPassword");
        return new RenewalSource(
            within ->
                prepared(
                    user == null ? raw.getConnection() : raw.getConnection(user, password),
                    catalog,
                    schema,
                    initSql),
            "the unpooled data source the HikariCP pool wraps (" + raw.getClass().getName() + ")",
            false);
      }
      String url = (String) getter(pool, "getJdbcUrl");
      String className = (String) getter(pool, "getDataSourceClassName");
      if (url == null && className != null) {
        return fromHikariClassName(pool, className, catalog, schema, initSql);
      }
      if (url == null) {
        return null;
      }
      Properties base = new Properties();
      Object props = getter(pool, "getDataSourceProperties");
      if (props instanceof Properties p) {
        base.putAll(p);
      }
      Object user = getter(pool, "getUsername");
      Object password = getter(pool, "getPassword");
      if (user != null) {
        base.setProperty("user", user.toString());
      }
      if (password != null) {
        base.setProperty("password", password.toString());
      }
      String driverClass = (String) getter(pool, "getDriverClassName");
      return fromDriver(
          url,
          () -> base,
          driverClass,
          pool.getClass().getClassLoader(),
          schema,
          catalog,
          initSql,
          "the driver, with the HikariCP pool's URL, credentials, schema and catalog (not the"
              + " pool): "
              + redact(url));
    } catch (ReflectiveOperationException | RuntimeException e) {
      return null; // a HikariCP this code does not know: the pool, said at setup
    }
  }

  /**
   * For a HikariCP pool configured with {@code dataSourceClassName}: the unpooled data source the
   * pool made from the class name, with its {@code dataSourceProperties} applied, which {@code
   * unwrap} returns once the pool has started ({@code unwrap(DataSource.class)} would return the
   * pool itself). Read at each open: a pool not started yet fails that try, naming why, and is
   * never borrowed from instead.
   */
  private static RenewalSource fromHikariClassName(
      DataSource pool, String className, String catalog, String schema, String initSql)
      throws ReflectiveOperationException {
    String user = (String) getter(pool, "getUsername");
    String password = (String) getter(pool, "getPassword");
    return new RenewalSource(
        within -> {
          DataSource raw = unwrapped(pool, className);
          return prepared(
              user == null ? raw.getConnection() : raw.getConnection(user, password),
              catalog,
              schema,
              initSql);
        },
        "the unpooled data source the HikariCP pool made from its dataSourceClassName ("
            + className
            + "), not the pool",
        false);
  }

  /**
   * @return the data source of class {@code className} that the HikariCP pool wraps
   * @throws SQLException naming why when the class cannot be loaded or the pool gives none (it has
   *     not started)
   */
  private static DataSource unwrapped(DataSource pool, String className) throws SQLException {
    Class<?> type;
    try {
      type = Class.forName(className, false, pool.getClass().getClassLoader());
    } catch (ClassNotFoundException | LinkageError e) {
      ClassLoader context = Thread.currentThread().getContextClassLoader();
      try {
        type = Class.forName(className, false, context);
      } catch (ClassNotFoundException | LinkageError again) {
        throw new SQLException(
            "cannot load the HikariCP pool's dataSourceClassName " + className, again);
      }
    }
    Object raw;
    try {
      raw = pool.unwrap(type);
    } catch (SQLException e) {
      throw new SQLException(
          "the HikariCP pool gives no "
              + className
              + " to open renewal connections from (not started yet? it starts at its first"
              + " connection): "
              + e.getMessage(),
          e);
    }
    if (raw == pool || !(raw instanceof DataSource ds)) {
      throw new SQLException(
          "the HikariCP pool's dataSourceClassName " + className + " unwraps to the pool itself");
    }
    return ds;
  }

  /**
   * @param url the JDBC URL
   * @param properties the driver's properties (user, password, ...), asked again for each new
   *     connection
   * @param initSql run on each new connection (the pool's own new-connection SQL), or null
   * @param loader where to find the driver when it is not registered
   * @return connections straight from the driver, each opened with the try's deadline as its
   *     connect and read timeouts
   */
  static RenewalSource fromDriver(
      String url, Supplier<Properties> properties, String initSql, ClassLoader loader) {
    return fromDriver(
        url,
        properties,
        null,
        loader,
        null,
        null,
        initSql,
        "the driver, with the URL and credentials given for renewals (not a pool): " + redact(url));
  }

  private static RenewalSource fromDriver(
      String url,
      Supplier<Properties> base,
      String driverClass,
      ClassLoader loader,
      String schema,
      String catalog,
      String initSql,
      String description) {
    return new RenewalSource(
        within -> {
          Connection c =
              driver(url, driverClass, loader).connect(url, withDeadline(url, base.get(), within));
          if (c == null) {
            throw new SQLException("the driver does not take the URL " + redact(url));
          }
          return prepared(c, catalog, schema, initSql);
        },
        description,
        false);
  }

  /**
   * Sets on a new renewal connection what the tools' connections have, so that the table resolves
   * as it does for them; closes it if that fails.
   */
  private static Connection prepared(Connection c, String catalog, String schema, String initSql)
      throws SQLException {
    try {
      if (catalog != null) {
        c.setCatalog(catalog);
      }
      if (schema != null) {
        c.setSchema(schema);
      }
      if (initSql != null) {
        try (java.sql.Statement st = c.createStatement()) {
          st.execute(initSql);
        }
      }
      return c;
    } catch (SQLException | RuntimeException e) {
      try {
        c.close();
      } catch (SQLException closing) {
        e.addSuppressed(closing);
      }
      throw e;
    }
  }

  /** The driver's own timeouts for connecting and reading, of the try's deadline. */
  static Properties withDeadline(String url, Properties base, Duration within) {
    Properties p = new Properties();
    p.putAll(base);
    long millis = Math.max(1, within.toMillis());
    String seconds = Long.toString(Math.max(1, (millis + 999) / 1000));
    if (url.startsWith("jdbc:postgresql:")) {
      p.setProperty("connectTimeout", seconds);
      p.setProperty("loginTimeout", seconds);
      p.setProperty("socketTimeout", seconds);
    } else if (url.startsWith("jdbc:mariadb:") || url.startsWith("jdbc:mysql:")) {
      p.setProperty("connectTimeout", Long.toString(millis));
      p.setProperty("socketTimeout", Long.toString(millis));
    }
    return p;
  }

  private static Driver driver(String url, String driverClass, ClassLoader loader)
      throws SQLException {
    try {
      return DriverManager.getDriver(url);
    } catch (SQLException notRegistered) {
      if (driverClass == null) {
        throw notRegistered;
      }
      try {
        return (Driver)
            Class.forName(driverClass, true, loader).getDeclaredConstructor().newInstance();
      } catch (ReflectiveOperationException e) {
        notRegistered.addSuppressed(e);
        throw notRegistered;
      }
    }
  }

  private static Object getter(Object target, String name) throws ReflectiveOperationException {
    Method m = target.getClass().getMethod(name);
    return m.invoke(target);
  }

  private static boolean isA(Class<?> type, String name) {
    for (Class<?> k = type; k != null; k = k.getSuperclass()) {
      if (k.getName().equals(name)) {
        return true;
      }
    }
    return false;
  }

  /** The URL without its query, which may carry a password. */
  private static String redact(String url) {
    int query = url.indexOf('?');
    return query < 0 ? url : url.substring(0, query) + "?…";
  }
}
