package dev.mcpgate.store.tck.fault;

import java.io.IOException;
import java.net.Socket;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One connection through a {@link FaultProxy}: the client's socket to the proxy, the proxy's socket
 * to the server, and the faults of this connection alone. Thread-safe.
 *
 * <p>A fault holds until it is changed, here or by the proxy's proxy-wide faults, whichever is set
 * last: {@link FaultProxy#restoreAll()} restores this link too, {@link #restore()} restores it even
 * when the proxy blackholed every link. The link closes when both sides have ended their streams,
 * when either side fails (the other is then reset), on {@link #reset()}, and when the proxy closes.
 */
public final class Link {
  private final int index;
  private final Socket client;
  private final Socket server;
  private final Pump toServer;
  private final Pump toClient;
  private final AtomicBoolean open = new AtomicBoolean(true);
  private final AtomicInteger endedDirections = new AtomicInteger();
  private volatile boolean blackholed;
  private volatile long latencyNanos;

  Link(
      int index,
      Socket client,
      Socket server,
      boolean blackholed,
      Duration latency,
      String threadNamePrefix) {
    this.index = index;
    this.client = client;
    this.server = server;
    this.blackholed = blackholed;
    this.latencyNanos = latency.toNanos();
    String name = threadNamePrefix + " link#" + index;
    this.toServer = new Pump(this, client, server, name + " client->server");
    this.toClient = new Pump(this, server, client, name + " server->client");
  }

  void start() {
    toServer.start();
    toClient.start();
  }

  /**
   * @return this link's position in {@link FaultProxy#links()}, from 0
   */
  public int index() {
    return index;
  }

  /**
   * @return the port of the client's end of its connection to the proxy (the client's local port)
   */
  public int clientPort() {
    return client.getPort();
  }

  /**
   * The local port of the proxy's socket to the server: the port the server sees its client on, to
   * find the server-side session (PostgreSQL's {@code pg_stat_activity.client_port}, Redis's {@code
   * CLIENT LIST} addr, MariaDB's processlist host {@code 127.0.0.1:port}).
   *
   * @return the local port of the socket to the server
   */
  public int upstreamLocalPort() {
    return server.getLocalPort();
  }

  /**
   * @return whether the link still holds its sockets open (a blackholed link is open)
   */
  public boolean isOpen() {
    return open.get();
  }

  /**
   * @return whether this link forwards nothing at present
   */
  public boolean isBlackholed() {
    return blackholed;
  }

  /**
   * Whether the client closed its connection to the proxy: its stream ended, or it reset the
   * connection. Known even while the link is blackholed, when the server is never told; not set
   * when the link was closed by the proxy ({@link #reset()}, the proxy's close, a failure of the
   * server's side). To check that a client abandons a connection it gave up on.
   *
   * @return whether the client closed its end
   */
  public boolean clientClosed() {
    return toServer.sourceEnded();
  }

  /**
   * @return the bytes written to the server so far (not those swallowed by a black hole)
   */
  public long bytesToServer() {
    return toServer.forwarded();
  }

  /**
   * @return the bytes written to the client so far (not those swallowed by a black hole)
   */
  public long bytesToClient() {
    return toClient.forwarded();
  }

  /**
   * From now on, forwards nothing in either direction: both sockets stay open and what arrives is
   * read and dropped, as in a half-open connection or a packet black hole. Bytes still delayed by a
   * latency are dropped too. The end of a stream, or a reset, that arrives meanwhile is swallowed
   * as well: the other side never learns of it, even after {@link #restore()}.
   */
  public void blackhole() {
    blackholed = true;
  }

  /** Forwards again what arrives from now on; what the black hole swallowed stays lost. */
  public void restore() {
    blackholed = false;
  }

  /**
   * From now on, delays every chunk forwarded in either direction by {@code latency}, keeping their
   * order; the reading is not slowed. Chunks already waiting keep their own delay.
   *
   * @param latency the delay; {@link Duration#ZERO} for none
   * @throws IllegalArgumentException if {@code latency} is negative
   */
  public void latency(Duration latency) {
    latencyNanos = checkLatency(latency).toNanos();
  }

  /**
   * Closes both sockets abruptly (SO_LINGER 0): the client and the server each see their connection
   * reset. Does nothing on a closed link.
   */
  public void reset() {
    if (open.compareAndSet(true, false)) {
      lingerZero(client);
      lingerZero(server);
      closeSockets();
    }
  }

  /**
   * @return the index, the ports and the state of this link
   */
  @Override
  public String toString() {
    return "Link#"
        + index
        + "[client port "
        + clientPort()
        + ", upstream local port "
        + upstreamLocalPort()
        + (isOpen() ? ", open" : ", closed")
        + (blackholed ? ", blackholed" : "")
        + (latencyNanos > 0 ? ", latency " + Duration.ofNanos(latencyNanos) : "")
        + "]";
  }

  /** Closes both sockets the ordinary way (the proxy is closing, or both streams ended). */
  void close() {
    if (open.compareAndSet(true, false)) {
      closeSockets();
    }
  }

  /** One side failed: the other is reset, as a failed network path would do. */
  void abort() {
    reset();
  }

  /** A pump delivered the end of its stream; the link closes after the second. */
  void directionEnded() {
    if (endedDirections.incrementAndGet() == 2) {
      close();
    }
  }

  long latencyNanos() {
    return latencyNanos;
  }

  List<Thread> threads() {
    return List.of(toServer.reader(), toServer.writer(), toClient.reader(), toClient.writer());
  }

  static Duration checkLatency(Duration latency) {
    if (Objects.requireNonNull(latency, "latency").isNegative()) {
      throw new IllegalArgumentException("negative latency: " + latency);
    }
    return latency;
  }

  private void closeSockets() {
    FaultProxy.closeQuietly(client);
    FaultProxy.closeQuietly(server);
    toServer.interrupt();
    toClient.interrupt();
  }

  private static void lingerZero(Socket socket) {
    try {
      socket.setSoLinger(true, 0);
    } catch (IOException e) {
      // already closed
    }
  }
}
