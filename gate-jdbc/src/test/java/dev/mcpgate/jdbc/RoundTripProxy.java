package dev.mcpgate.jdbc;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;

/**
 * A TCP relay between a JDBC driver and its database that counts round trips on the wire: a round
 * trip begins when the client sends after the server last answered (or first), so statements a
 * driver sends together count once and a call the driver answers from memory counts not at all. It
 * counts what a network pays for, whatever the driver does behind its API.
 */
final class RoundTripProxy implements AutoCloseable {
  private final ServerSocket server;
  private final InetSocketAddress target;
  private final AtomicInteger roundTrips = new AtomicInteger();
  private final List<Socket> sockets = new CopyOnWriteArrayList<>();

  /**
   * @param host the database's host
   * @param port the database's port
   */
  RoundTripProxy(String host, int port) throws IOException {
    this.target = new InetSocketAddress(host, port);
    this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    Thread acceptor = new Thread(this::accept, "round-trip-proxy");
    acceptor.setDaemon(true);
    acceptor.start();
  }

  /**
   * @param jdbcUrl a {@code jdbc:postgresql://host:port/..} or {@code jdbc:mariadb://..} URL
   * @return a relay to that URL's host and port
   */
  static RoundTripProxy to(String jdbcUrl) throws IOException {
    URI uri = URI.create(jdbcUrl.substring("jdbc:".length()));
    return new RoundTripProxy(uri.getHost(), uri.getPort());
  }

  /**
   * @return the same URL, through this relay
   */
  String relayed(String jdbcUrl) {
    URI uri = URI.create(jdbcUrl.substring("jdbc:".length()));
    String hostPort = uri.getHost() + ":" + uri.getPort();
    return jdbcUrl.replaceFirst(
        java.util.regex.Pattern.quote(hostPort), "127.0.0.1:" + server.getLocalPort());
  }

  /**
   * @param target the database
   * @return a data source that hands out one connection through this relay, again and again (its
   *     close() gives it back, not closes it), so that no pool's checks and no connect count
   */
  DataSource oneConnection(TestDatabases.Target target) throws SQLException {
    Connection real =
        target.user() == null
            ? DriverManager.getConnection(relayed(target.url()))
            : DriverManager.getConnection(relayed(target.url()), target.user(), target.password());
    Connection kept =
        (Connection)
            Proxy.newProxyInstance(
                getClass().getClassLoader(),
                new Class<?>[] {Connection.class},
                (p, method, args) -> {
                  if (method.getName().equals("close")) {
                    return null;
                  }
                  try {
                    return method.invoke(real, args);
                  } catch (InvocationTargetException e) {
                    throw e.getCause();
                  }
                });
    return (DataSource)
        Proxy.newProxyInstance(
            getClass().getClassLoader(),
            new Class<?>[] {DataSource.class},
            (p, method, args) -> {
              if (method.getName().equals("getConnection")) {
                return kept;
              }
              if (method.getName().equals("isWrapperFor")) {
                return false;
              }
              throw new UnsupportedOperationException(method.getName());
            });
  }

  int roundTrips() {
    return roundTrips.get();
  }

  void reset() {
    roundTrips.set(0);
  }

  private void accept() {
    while (!server.isClosed()) {
      try {
        Socket client = server.accept();
        Socket db = new Socket(target.getAddress(), target.getPort());
        client.setTcpNoDelay(true);
        db.setTcpNoDelay(true);
        sockets.add(client);
        sockets.add(db);
        AtomicBoolean awaitingAnswer = new AtomicBoolean();
        pump(client, db, awaitingAnswer, true);
        pump(db, client, awaitingAnswer, false);
      } catch (IOException e) {
        return;
      }
    }
  }

  private void pump(Socket from, Socket to, AtomicBoolean awaitingAnswer, boolean request) {
    Thread t =
        new Thread(
            () -> {
              byte[] buffer = new byte[64 * 1024];
              try (InputStream in = from.getInputStream();
                  OutputStream out = to.getOutputStream()) {
                int n;
                while ((n = in.read(buffer)) >= 0) {
                  if (request) {
                    if (!awaitingAnswer.getAndSet(true)) {
                      roundTrips.incrementAndGet();
                    }
                  } else {
                    // before the answer reaches the client, which may send again at once
                    awaitingAnswer.set(false);
                  }
                  out.write(buffer, 0, n);
                  out.flush();
                }
              } catch (IOException e) {
                // the other side closed
              } finally {
                close(from);
                close(to);
              }
            },
            "round-trip-proxy-pump");
    t.setDaemon(true);
    t.start();
  }

  private static void close(Socket s) {
    try {
      s.close();
    } catch (IOException e) {
      // closing
    }
  }

  @Override
  public void close() throws IOException {
    server.close();
    for (Socket s : sockets) {
      close(s);
    }
  }
}
