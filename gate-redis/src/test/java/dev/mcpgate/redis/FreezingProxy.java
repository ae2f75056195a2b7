package dev.mcpgate.redis;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A TCP proxy of the tests' own in front of a real server, on a free loopback port. {@link
 * #freeze()} black-holes every connection open at that moment: it stays open, what either side
 * sends is read and dropped, nothing ever arrives (a network path that went dead without a reset).
 * Connections made after it pass as before, so a client that opens a fresh connection reaches the
 * server at once.
 */
final class FreezingProxy implements AutoCloseable {
  private final ServerSocket listener;
  private final String host;
  private final int port;
  private final List<Pair> pairs = new CopyOnWriteArrayList<>();
  private final AtomicInteger accepted = new AtomicInteger();
  private volatile boolean closed;

  private FreezingProxy(String host, int port) throws IOException {
    this.host = host;
    this.port = port;
    this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    Thread accepting = new Thread(this::accept, "freezing-proxy-" + listener.getLocalPort());
    accepting.setDaemon(true);
    accepting.start();
  }

  /** A proxy to {@code host:port}, accepting on a free loopback port. */
  static FreezingProxy to(String host, int port) throws IOException {
    return new FreezingProxy(host, port);
  }

  /**
   * @return the port the proxy accepts on
   */
  int port() {
    return listener.getLocalPort();
  }

  /**
   * @return how many connections the proxy has accepted so far
   */
  int accepted() {
    return accepted.get();
  }

  /** Black-holes every connection open now; later ones pass. */
  void freeze() {
    pairs.forEach(p -> p.frozen = true);
  }

  private void accept() {
    while (!closed) {
      Socket client;
      try {
        client = listener.accept();
      } catch (IOException e) {
        return; // closed
      }
      accepted.incrementAndGet();
      try {
        Socket server = new Socket(host, port);
        Pair pair = new Pair(client, server);
        pairs.add(pair);
        pump(pair, client.getInputStream(), server.getOutputStream());
        pump(pair, server.getInputStream(), client.getOutputStream());
      } catch (IOException e) {
        closeQuietly(client);
      }
    }
  }

  private void pump(Pair pair, InputStream from, OutputStream to) {
    Thread t =
        new Thread(
            () -> {
              byte[] buffer = new byte[16 * 1024];
              try {
                int n;
                while ((n = from.read(buffer)) >= 0) {
                  if (!pair.frozen) {
                    to.write(buffer, 0, n);
                    to.flush();
                  }
                }
              } catch (IOException ended) {
                // one side closed
              }
              if (!pair.frozen) {
                pair.close();
              }
            },
            "freezing-proxy-pump");
    t.setDaemon(true);
    t.start();
  }

  /** Closes the listener and every connection, frozen ones included. */
  @Override
  public void close() {
    closed = true;
    closeQuietly(listener);
    pairs.forEach(Pair::close);
  }

  private static void closeQuietly(AutoCloseable c) {
    try {
      c.close();
    } catch (Exception ignored) {
      // closing
    }
  }

  /** A client's connection and the proxy's to the server. */
  private static final class Pair {
    final Socket client;
    final Socket server;
    volatile boolean frozen;

    Pair(Socket client, Socket server) {
      this.client = client;
      this.server = server;
    }

    void close() {
      closeQuietly(client);
      closeQuietly(server);
    }
  }
}
