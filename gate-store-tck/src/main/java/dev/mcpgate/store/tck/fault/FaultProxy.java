package dev.mcpgate.store.tck.fault;

import java.io.Closeable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A TCP proxy on 127.0.0.1 that forwards each connection it accepts to one server and breaks
 * connections on demand, deterministically: a black hole, a reset, a latency, per {@link Link} or
 * for all of them, and new connections refused or left hanging. Made for store tests: point the
 * store at {@link #port()} (see {@link #relayedJdbcUrl(String)} and {@link #relayed(URI)}) and
 * break what a lease renewal needs.
 *
 * <p>A proxy-wide fault applies to every open link and to the links accepted after it, until it is
 * changed; a link's own fault set afterwards overrides it for that link. Thread-safe. Its threads
 * are daemons named after {@link #threadNamePrefix()}; {@link #close()} stops them all.
 */
public final class FaultProxy implements Closeable {
  private static final int CONNECT_TIMEOUT_MILLIS = 5_000;
  private static final long CLOSE_WAIT_NANOS = TimeUnit.SECONDS.toNanos(5);

  private final String host;
  private final int targetPort;
  private final ServerSocket listener;
  private final String threadNamePrefix;
  private final Thread acceptor;
  private final AtomicBoolean closed = new AtomicBoolean();
  private final AtomicInteger refused = new AtomicInteger();
  private final Object lock = new Object();
  private final List<Link> links = new ArrayList<>(); // guarded by lock
  private Duration latency = Duration.ZERO; // guarded by lock
  private boolean allBlackholed; // guarded by lock
  private volatile boolean refuseNew;
  private volatile boolean blackholeNew;

  private FaultProxy(String host, int targetPort) throws IOException {
    this.host = host;
    this.targetPort = targetPort;
    this.listener = new ServerSocket();
    try {
      listener.bind(new InetSocketAddress("127.0.0.1", 0));
    } catch (IOException e) {
      closeQuietly(listener);
      throw e;
    }
    this.threadNamePrefix = "fault-proxy[" + listener.getLocalPort() + "]";
    this.acceptor = daemon(threadNamePrefix + " acceptor", this::acceptLoop);
    acceptor.start();
  }

  /**
   * Starts a proxy to a server.
   *
   * @param host the server's host
   * @param port the server's port
   * @return the proxy, listening on 127.0.0.1 at an ephemeral {@link #port()}
   * @throws UncheckedIOException if the proxy cannot listen
   */
  public static FaultProxy to(String host, int port) {
    if (port < 1 || port > 65_535) {
      throw new IllegalArgumentException("not a port: " + port);
    }
    try {
      return new FaultProxy(host, port);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot listen on 127.0.0.1", e);
    }
  }

  /**
   * Starts a proxy to the server of a JDBC URL of one host, {@code jdbc:postgresql://h:p/...} or
   * {@code jdbc:mariadb://h:p/...} (or {@code jdbc:mysql:}); without a port, the driver's default.
   *
   * @param jdbcUrl the URL the store would use without the proxy
   * @return the proxy; {@link #relayedJdbcUrl(String)} gives the URL through it
   * @throws IllegalArgumentException if the URL is not one of those, or names several hosts
   */
  public static FaultProxy to(String jdbcUrl) {
    Addresses.HostPort target = Addresses.ofJdbcUrl(jdbcUrl);
    return to(target.host(), target.port());
  }

  /**
   * Starts a proxy to the server of a URI with a host, such as {@code redis://h:p} or {@code
   * http://h:p}; without a port, the scheme's default (redis, rediss, http, https).
   *
   * @param uri the URI the store would use without the proxy
   * @return the proxy; {@link #relayed(URI)} gives the URI through it
   * @throws IllegalArgumentException if the URI has no host, or no port and no known scheme
   */
  public static FaultProxy to(URI uri) {
    Addresses.HostPort target = Addresses.ofUri(uri);
    return to(target.host(), target.port());
  }

  /**
   * @return the port the proxy listens on, at 127.0.0.1
   */
  public int port() {
    return listener.getLocalPort();
  }

  /**
   * @return how every thread of this proxy's name starts, such as {@code fault-proxy[40123]}
   */
  public String threadNamePrefix() {
    return threadNamePrefix;
  }

  /**
   * The same JDBC URL through the proxy: its one {@code host[:port]} replaced by {@code
   * 127.0.0.1:}{@link #port()}, the rest (database, parameters) kept.
   *
   * @param jdbcUrl a {@code jdbc:postgresql://}, {@code jdbc:mariadb://} or {@code jdbc:mysql://}
   *     URL of one host
   * @return the URL through this proxy
   * @throws IllegalArgumentException if the URL is not one of those, or names several hosts
   */
  public String relayedJdbcUrl(String jdbcUrl) {
    return Addresses.relayedJdbcUrl(jdbcUrl, port());
  }

  /**
   * The same URI through the proxy, such as {@code redis://h:p/0} or {@code http://h:p}: its host
   * and port replaced by {@code 127.0.0.1:}{@link #port()}; user information, path, query and
   * fragment kept as they were written.
   *
   * @param uri a URI with a host
   * @return the URI through this proxy
   * @throws IllegalArgumentException if the URI has no host
   */
  public URI relayed(URI uri) {
    return Addresses.relayed(uri, port());
  }

  /**
   * @return the connections accepted so far, open or closed, in the order accepted; a connection
   *     refused by {@link #refuseNew(boolean)}, or whose server could not be reached, is not one
   */
  public List<Link> links() {
    synchronized (lock) {
      return List.copyOf(links);
    }
  }

  /**
   * Waits until at least {@code n} links were accepted.
   *
   * @param n how many links
   * @param timeout how long to wait at most
   * @return whether there are {@code n} links; false when the time ran out first
   * @throws InterruptedException if the waiting thread is interrupted
   */
  public boolean awaitLinks(int n, Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    synchronized (lock) {
      while (links.size() < n) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          return false;
        }
        TimeUnit.NANOSECONDS.timedWait(lock, left);
      }
      return true;
    }
  }

  /**
   * @return how many connections were reset at once because of {@link #refuseNew(boolean)} or
   *     because the server could not be reached
   */
  public int refusedCount() {
    return refused.get();
  }

  /**
   * From now on, delays every chunk forwarded on every link, open or accepted later, by {@code
   * latency} (see {@link Link#latency(Duration)}): the whole store stalls.
   *
   * @param latency the delay; {@link Duration#ZERO} for none
   * @throws IllegalArgumentException if {@code latency} is negative
   */
  public void latency(Duration latency) {
    Link.checkLatency(latency);
    synchronized (lock) {
      this.latency = latency;
      links.forEach(link -> link.latency(latency));
    }
  }

  /** Blackholes every open link and every link accepted later (see {@link Link#blackhole()}). */
  public void blackholeAll() {
    synchronized (lock) {
      allBlackholed = true;
      links.forEach(Link::blackhole);
    }
  }

  /**
   * Restores every link, whatever blackholed it (this proxy, the link itself, {@link
   * #blackholeNew(boolean)}), and lets links accepted later forward again (unless {@link
   * #blackholeNew(boolean)} is on).
   */
  public void restoreAll() {
    synchronized (lock) {
      allBlackholed = false;
      links.forEach(Link::restore);
    }
  }

  /**
   * Whether new connections are accepted and reset at once, as if the server were down for new
   * connections; the open links go on working.
   *
   * @param refuse true to refuse the connections accepted from now on, false to forward them
   */
  public void refuseNew(boolean refuse) {
    refuseNew = refuse;
  }

  /**
   * Whether new connections are accepted, connected to the server, and blackholed from the start: a
   * connection opening that hangs at the protocol level, to test connection deadlines. A link so
   * blackholed stays so until {@link Link#restore()} or {@link #restoreAll()}.
   *
   * @param blackhole true to blackhole the connections accepted from now on, false to forward them
   */
  public void blackholeNew(boolean blackhole) {
    blackholeNew = blackhole;
  }

  /**
   * Stops listening, closes every link (the ordinary way, not a reset) and waits a few seconds at
   * most for every thread of the proxy to end. Calling it again does nothing.
   */
  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    closeQuietly(listener);
    List<Thread> threads = new ArrayList<>(List.of(acceptor));
    for (Link link : links()) {
      link.close();
      threads.addAll(link.threads());
    }
    long deadline = System.nanoTime() + CLOSE_WAIT_NANOS;
    try {
      for (Thread thread : threads) {
        long left = deadline - System.nanoTime();
        if (left > 0) {
          TimeUnit.NANOSECONDS.timedJoin(thread, left);
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /**
   * @return the listening port, the server and the number of links
   */
  @Override
  public String toString() {
    return "FaultProxy[127.0.0.1:"
        + port()
        + " -> "
        + host
        + ":"
        + targetPort
        + ", "
        + links().size()
        + " links"
        + (closed.get() ? ", closed]" : "]");
  }

  private void acceptLoop() {
    while (!closed.get()) {
      Socket client;
      try {
        client = listener.accept();
      } catch (IOException e) {
        return; // the listener is closed
      }
      admit(client);
    }
  }

  private void admit(Socket client) {
    if (refuseNew) {
      refuse(client);
      return;
    }
    Socket server = new Socket();
    try {
      client.setTcpNoDelay(true);
      server.setTcpNoDelay(true);
      server.connect(new InetSocketAddress(host, targetPort), CONNECT_TIMEOUT_MILLIS);
    } catch (IOException e) {
      closeQuietly(server);
      refuse(client);
      return;
    }
    synchronized (lock) {
      if (closed.get()) {
        closeQuietly(client);
        closeQuietly(server);
        return;
      }
      Link link =
          new Link(
              links.size(),
              client,
              server,
              allBlackholed || blackholeNew,
              latency,
              threadNamePrefix);
      links.add(link);
      link.start();
      lock.notifyAll();
    }
  }

  private void refuse(Socket client) {
    refused.incrementAndGet();
    try {
      client.setSoLinger(true, 0);
    } catch (IOException e) {
      // closed already
    }
    closeQuietly(client);
  }

  static Thread daemon(String name, Runnable task) {
    Thread thread = new Thread(task, name);
    thread.setDaemon(true);
    return thread;
  }

  static void closeQuietly(Closeable closeable) {
    try {
      closeable.close();
    } catch (IOException e) {
      // closing anyway
    }
  }
}
