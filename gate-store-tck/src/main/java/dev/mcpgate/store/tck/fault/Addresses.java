package dev.mcpgate.store.tck.fault;

import java.net.URI;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The addresses {@link FaultProxy} reads and rewrites: the one host and port of a JDBC URL or a
 * URI, with the scheme's default port, and the same address through a proxy's port.
 */
final class Addresses {
  private static final Pattern JDBC_URL =
      Pattern.compile("(jdbc:(postgresql|mariadb|mysql)://)([^/?#]*)(.*)", Pattern.DOTALL);
  private static final Pattern HOST_PORT =
      Pattern.compile("(\\[[^\\]]+\\]|[^:\\[\\],@()\\s]+)(?::(\\d+))?");

  private Addresses() {}

  /** A server's host and port. */
  record HostPort(String host, int port) {}

  static HostPort ofJdbcUrl(String jdbcUrl) {
    Matcher url = matchJdbcUrl(jdbcUrl);
    Matcher hostPort = matchHostPort(url.group(3), jdbcUrl);
    return new HostPort(hostPort.group(1), portOr(hostPort.group(2), url.group(2)));
  }

  static HostPort ofUri(URI uri) {
    String host = requireHost(uri);
    return new HostPort(
        host, uri.getPort() != -1 ? uri.getPort() : portOr(null, String.valueOf(uri.getScheme())));
  }

  static String relayedJdbcUrl(String jdbcUrl, int port) {
    Matcher url = matchJdbcUrl(jdbcUrl);
    matchHostPort(url.group(3), jdbcUrl);
    return url.group(1) + "127.0.0.1:" + port + url.group(4);
  }

  static URI relayed(URI uri, int port) {
    requireHost(uri);
    StringBuilder relayed = new StringBuilder(uri.getScheme()).append("://");
    if (uri.getRawUserInfo() != null) {
      relayed.append(uri.getRawUserInfo()).append('@');
    }
    relayed.append("127.0.0.1:").append(port);
    if (uri.getRawPath() != null) {
      relayed.append(uri.getRawPath());
    }
    if (uri.getRawQuery() != null) {
      relayed.append('?').append(uri.getRawQuery());
    }
    if (uri.getRawFragment() != null) {
      relayed.append('#').append(uri.getRawFragment());
    }
    return URI.create(relayed.toString());
  }

  private static Matcher matchJdbcUrl(String jdbcUrl) {
    Matcher url = JDBC_URL.matcher(jdbcUrl);
    if (!url.matches()) {
      throw new IllegalArgumentException(
          "not a jdbc:postgresql://, jdbc:mariadb:// or jdbc:mysql:// URL: " + jdbcUrl);
    }
    return url;
  }

  private static Matcher matchHostPort(String authority, String url) {
    Matcher hostPort = HOST_PORT.matcher(authority);
    if (!hostPort.matches()) {
      throw new IllegalArgumentException("not one host[:port]: " + url);
    }
    return hostPort;
  }

  private static int portOr(String port, String scheme) {
    if (port != null) {
      return Integer.parseInt(port);
    }
    return switch (scheme.toLowerCase(Locale.ROOT)) {
      case "postgresql" -> 5432;
      case "mariadb", "mysql" -> 3306;
      case "redis", "rediss" -> 6379;
      case "http" -> 80;
      case "https" -> 443;
      default -> throw new IllegalArgumentException("no port, and no default port for " + scheme);
    };
  }

  private static String requireHost(URI uri) {
    if (uri.getHost() == null) {
      throw new IllegalArgumentException("no host in " + uri);
    }
    return uri.getHost();
  }
}
