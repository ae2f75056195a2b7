package dev.mcpgate.redis.review;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A TCP proxy to one server that can lose one reply: once {@link #loseNextReply()} is called, the
 * next bytes the server sends on an open connection are dropped and that connection is closed in
 * order (a FIN to the client, as a server, a load balancer or a proxy closing a connection does),
 * after the server has run the command they answer. {@code gate-store-tck}'s {@code FaultProxy}
 * only resets (RST), on which Lettuce fails the command instead of sending it again.
 */
final class ReplyDroppingProxy implements AutoCloseable {
  private final ServerSocket listener;
  private final String host;
  private final int port;
  private final AtomicBoolean loseNext = new AtomicBoolean();
  private final AtomicInteger lost = new AtomicInteger();
  private final AtomicInteger accepted = new AtomicInteger();
  private final List<Socket> sockets = new CopyOnWriteArrayList<>();

  ReplyDroppingProxy(String host, int port) throws IOException {
    this.host = host;
    this.port = port;
    this.listener = new ServerSocket();
    listener.bind(new InetSocketAddress("127.0.0.1", 0));
    daemon(this::accept).start();
  }

  int port() {
    return listener.getLocalPort();
  }

  /** The next reply the server sends, on any connection, is dropped and its connection closed. */
  void loseNextReply() {
    loseNext.set(true);
  }

  /**
   * @return how many replies were dropped so far
   */
  int lost() {
    return lost.get();
  }

  /**
   * @return how many connections were accepted so far
   */
  int accepted() {
    return accepted.get();
  }

  private void accept() {
    while (!listener.isClosed()) {
      try {
        Socket client = listener.accept();
        Socket server = new Socket(host, port);
        client.setTcpNoDelay(true);
        server.setTcpNoDelay(true);
        sockets.add(client);
        sockets.add(server);
        accepted.incrementAndGet();
        daemon(() -> pump(client, server, false)).start();
        daemon(() -> pump(server, client, true)).start();
      } catch (IOException e) {
        return;
      }
    }
  }

  private void pump(Socket from, Socket to, boolean replies) {
    byte[] buffer = new byte[64 * 1024];
    try {
      InputStream in = from.getInputStream();
      OutputStream out = to.getOutputStream();
      while (true) {
        int n = in.read(buffer);
        if (n < 0) {
          to.shutdownOutput();
          return;
        }
        if (replies && loseNext.compareAndSet(true, false)) {
          lost.incrementAndGet();
          to.close(); // the client sees its connection closed in order, the reply never comes
          from.close();
          return;
        }
        out.write(buffer, 0, n);
        out.flush();
      }
    } catch (IOException e) {
      closeQuietly(from);
      closeQuietly(to);
    }
  }

  private static Thread daemon(Runnable r) {
    Thread t = new Thread(r, "reply-dropping-proxy");
    t.setDaemon(true);
    return t;
  }

  private static void closeQuietly(Socket s) {
    try {
      s.close();
    } catch (IOException e) {
      // closing anyway
    }
  }

  @Override
  public void close() throws IOException {
    listener.close();
    for (Socket s : sockets) {
      closeQuietly(s);
    }
  }
}
