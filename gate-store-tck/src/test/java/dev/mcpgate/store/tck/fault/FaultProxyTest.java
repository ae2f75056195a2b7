package dev.mcpgate.store.tck.fault;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The fault proxy between a client socket and a tiny echo server: each test names a feature and
 * fails without it. Timings are asserted as lower bounds only.
 */
class FaultProxyTest {
  private static final Duration LATENCY = Duration.ofMillis(300);
  private static final Duration WAIT = Duration.ofSeconds(5);
  private static final Duration SILENCE = Duration.ofMillis(500);

  private enum ReadOutcome {
    DATA,
    EOF,
    RESET,
    TIMEOUT
  }

  private EchoServer echo;
  private FaultProxy proxy;
  private final List<Socket> clients = new ArrayList<>();

  @BeforeEach
  void start() throws IOException {
    echo = new EchoServer();
    proxy = FaultProxy.to("127.0.0.1", echo.port());
  }

  @AfterEach
  void stop() throws IOException {
    for (Socket client : clients) {
      client.close();
    }
    proxy.close();
    echo.close();
  }

  @Test
  void forwardsManyBytesBothWays() throws Exception {
    byte[] sent = new byte[4 * 1024 * 1024];
    new Random(42).nextBytes(sent);
    Socket client = connect();
    CompletableFuture<Void> writing =
        CompletableFuture.runAsync(
            () -> {
              try {
                client.getOutputStream().write(sent);
                client.getOutputStream().flush();
              } catch (IOException e) {
                throw new RuntimeException(e);
              }
            });

    byte[] received = client.getInputStream().readNBytes(sent.length);

    writing.join();
    assertThat(received).isEqualTo(sent);
    Link link = onlyLink();
    eventually(() -> link.bytesToServer() == sent.length && link.bytesToClient() == sent.length);
    assertThat(link.bytesToServer()).isEqualTo(sent.length);
    assertThat(link.bytesToClient()).isEqualTo(sent.length);
  }

  @Test
  void linkLatencyDelaysEachDirectionAndKeepsTheOrder() throws Exception {
    Socket client = connect();
    assertThat(roundTrip(client, 1)).isEqualTo(1);
    Link link = onlyLink();
    link.latency(LATENCY);

    long start = System.nanoTime();
    OutputStream out = client.getOutputStream();
    for (int i = 0; i < 50; i++) {
      out.write(i);
      out.flush();
      Thread.sleep(2);
    }
    byte[] received = client.getInputStream().readNBytes(50);
    Duration elapsed = Duration.ofNanos(System.nanoTime() - start);

    for (int i = 0; i < 50; i++) {
      assertThat(received[i]).as("byte %d", i).isEqualTo((byte) i);
    }
    // there and back: the latency twice
    assertThat(elapsed).isGreaterThanOrEqualTo(LATENCY.multipliedBy(2 * 9).dividedBy(10));

    link.latency(Duration.ZERO);
    assertThat(roundTrip(client, 2)).isEqualTo(2);
  }

  @Test
  void blackholeSwallowsWhileTheSocketStaysOpenAndRestoreResumes() throws Exception {
    Socket client = connect();
    assertThat(roundTrip(client, 1)).isEqualTo(1);
    Link link = onlyLink();

    link.blackhole();
    client.getOutputStream().write(2);
    client.getOutputStream().flush();
    assertThat(read(client, SILENCE)).isEqualTo(ReadOutcome.TIMEOUT);
    assertThat(link.isOpen()).isTrue();
    assertThat(link.isBlackholed()).isTrue();

    link.restore();
    // the byte swallowed is not delivered late: the next answer is the next byte
    assertThat(roundTrip(client, 3)).isEqualTo(3);
    // counted just after each write: a reply can overtake the count
    eventually(() -> link.bytesToServer() == 2 && link.bytesToClient() == 2);
    assertThat(link.bytesToServer()).isEqualTo(2);
    assertThat(link.bytesToClient()).isEqualTo(2);
  }

  @Test
  void resetClosesBothSidesAbruptly() throws Exception {
    Socket client = connect();
    assertThat(roundTrip(client, 1)).isEqualTo(1);
    Link link = onlyLink();

    link.reset();

    assertThat(read(client, WAIT)).isEqualTo(ReadOutcome.RESET);
    assertThat(link.isOpen()).isFalse();
  }

  @Test
  void clientClosedIsKnownEvenThroughABlackholeButNotForTheProxysOwnReset() throws Exception {
    proxy.blackholeNew(true);
    Socket closing = connect();
    Socket resetting = connect();
    Socket kept = connect();
    assertThat(proxy.awaitLinks(3, WAIT)).isTrue();
    List<Link> links = proxy.links();
    assertThat(links).noneMatch(Link::clientClosed);

    closing.close();
    resetting.setSoLinger(true, 0);
    resetting.close();

    eventually(() -> links.get(0).clientClosed() && links.get(1).clientClosed());
    assertThat(links.get(0).clientClosed()).as("its stream ended").isTrue();
    assertThat(links.get(1).clientClosed()).as("it reset").isTrue();
    assertThat(links.get(0).isOpen()).as("the server was never told").isTrue();
    links.get(2).reset();
    Thread.sleep(SILENCE.toMillis());
    assertThat(links.get(2).clientClosed()).as("the proxy reset it, not the client").isFalse();
    assertThat(read(kept, WAIT)).isEqualTo(ReadOutcome.RESET);
  }

  @Test
  void refuseNewResetsNewConnectionsWhileOpenOnesWork() throws Exception {
    Socket before = connect();
    assertThat(roundTrip(before, 1)).isEqualTo(1);
    onlyLink();

    proxy.refuseNew(true);
    Socket after = connect();

    assertThat(read(after, WAIT)).isEqualTo(ReadOutcome.RESET);
    assertThat(roundTrip(before, 2)).isEqualTo(2);
    assertThat(proxy.refusedCount()).isEqualTo(1);
    assertThat(proxy.links()).hasSize(1);

    proxy.refuseNew(false);
    assertThat(roundTrip(connect(), 3)).isEqualTo(3);
  }

  @Test
  void blackholeNewLeavesNewConnectionsHanging() throws Exception {
    proxy.blackholeNew(true);
    Socket client = connect();
    client.getOutputStream().write(1);
    client.getOutputStream().flush();

    assertThat(read(client, SILENCE)).isEqualTo(ReadOutcome.TIMEOUT);
    Link link = onlyLink();
    assertThat(link.isOpen()).isTrue();
    assertThat(link.isBlackholed()).isTrue();

    proxy.blackholeNew(false);
    assertThat(roundTrip(connect(), 2)).isEqualTo(2);
    link.restore();
    assertThat(roundTrip(client, 3)).isEqualTo(3);
  }

  @Test
  void proxyLatencyAppliesToOpenLinksAndToLinksOpenedLater() throws Exception {
    Socket before = connect();
    assertThat(roundTrip(before, 1)).isEqualTo(1);
    onlyLink();

    proxy.latency(LATENCY);
    Socket after = connect();

    Duration lowerBound = LATENCY.multipliedBy(2 * 9).dividedBy(10);
    assertThat(timedRoundTrip(after)).isGreaterThanOrEqualTo(lowerBound);
    assertThat(timedRoundTrip(before)).isGreaterThanOrEqualTo(lowerBound);
  }

  @Test
  void blackholeAllAppliesToOpenLinksAndToLinksOpenedLaterUntilRestoreAll() throws Exception {
    Socket before = connect();
    assertThat(roundTrip(before, 1)).isEqualTo(1);
    onlyLink();

    proxy.blackholeAll();
    Socket after = connect();
    assertThat(proxy.awaitLinks(2, WAIT)).isTrue();
    before.getOutputStream().write(2);
    after.getOutputStream().write(2);
    assertThat(read(before, SILENCE)).isEqualTo(ReadOutcome.TIMEOUT);
    assertThat(read(after, SILENCE)).isEqualTo(ReadOutcome.TIMEOUT);

    proxy.restoreAll();
    assertThat(roundTrip(before, 3)).isEqualTo(3);
    assertThat(roundTrip(after, 4)).isEqualTo(4);
  }

  @Test
  void upstreamLocalPortIsThePortTheServerSeesItsClientOn() throws Exception {
    Socket client = connect();
    assertThat(roundTrip(client, 1)).isEqualTo(1);

    Link link = onlyLink();

    assertThat(echo.remotePorts).containsExactly(link.upstreamLocalPort());
    assertThat(link.clientPort()).isEqualTo(client.getLocalPort());
  }

  @Test
  void closeStopsEveryThreadAndClosesEveryLink() throws Exception {
    Socket first = connect();
    Socket second = connect();
    assertThat(roundTrip(first, 1)).isEqualTo(1);
    assertThat(roundTrip(second, 2)).isEqualTo(2);
    assertThat(proxy.awaitLinks(2, WAIT)).isTrue();
    String prefix = proxy.threadNamePrefix();
    assertThat(liveThreads(prefix)).hasSizeGreaterThanOrEqualTo(9);

    proxy.close();
    proxy.close();

    eventually(() -> liveThreads(prefix).isEmpty());
    assertThat(liveThreads(prefix)).isEmpty();
    assertThat(proxy.links()).noneMatch(Link::isOpen);
    assertThat(read(first, WAIT)).isIn(ReadOutcome.EOF, ReadOutcome.RESET);
  }

  @Test
  void relaysJdbcUrlsAndUris() throws Exception {
    int port = proxy.port();
    assertThat(proxy.relayedJdbcUrl("jdbc:postgresql://db.example:5432/gate?sslmode=disable"))
        .isEqualTo("jdbc:postgresql://127.0.0.1:" + port + "/gate?sslmode=disable");
    assertThat(proxy.relayedJdbcUrl("jdbc:mariadb://db.example/gate"))
        .isEqualTo("jdbc:mariadb://127.0.0.1:" + port + "/gate");
    assertThat(proxy.relayed(URI.create("redis://user:p%40ss@cache.example:6379/0")))
        .isEqualTo(URI.create("redis://user:p%40ss@127.0.0.1:" + port + "/0"));
    assertThat(proxy.relayed(URI.create("http://127.0.0.1:8000")))
        .isEqualTo(URI.create("http://127.0.0.1:" + port));
    assertThatThrownBy(() -> proxy.relayedJdbcUrl("jdbc:postgresql://h1:5432,h2:5432/gate"))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> proxy.relayedJdbcUrl("jdbc:h2:mem:gate"))
        .isInstanceOf(IllegalArgumentException.class);

    try (FaultProxy byUrl = FaultProxy.to("jdbc:postgresql://127.0.0.1:" + echo.port() + "/gate");
        Socket client = new Socket("127.0.0.1", byUrl.port())) {
      client.setSoTimeout((int) WAIT.toMillis());
      assertThat(roundTrip(client, 7)).isEqualTo(7);
    }
    try (FaultProxy byUri = FaultProxy.to(URI.create("redis://127.0.0.1:" + echo.port() + "/0"));
        Socket client = new Socket("127.0.0.1", byUri.port())) {
      client.setSoTimeout((int) WAIT.toMillis());
      assertThat(roundTrip(client, 8)).isEqualTo(8);
    }
  }

  private Socket connect() throws IOException {
    Socket client = new Socket("127.0.0.1", proxy.port());
    clients.add(client);
    client.setTcpNoDelay(true);
    client.setSoTimeout((int) WAIT.toMillis());
    return client;
  }

  private Link onlyLink() throws InterruptedException {
    assertThat(proxy.awaitLinks(1, WAIT)).isTrue();
    List<Link> links = proxy.links();
    assertThat(links).isNotEmpty();
    return links.get(0);
  }

  private static int roundTrip(Socket client, int b) throws IOException {
    client.getOutputStream().write(b);
    client.getOutputStream().flush();
    return client.getInputStream().read();
  }

  private static Duration timedRoundTrip(Socket client) throws IOException {
    long start = System.nanoTime();
    assertThat(roundTrip(client, 9)).isEqualTo(9);
    return Duration.ofNanos(System.nanoTime() - start);
  }

  private static ReadOutcome read(Socket client, Duration timeout) throws IOException {
    client.setSoTimeout((int) timeout.toMillis());
    try {
      return client.getInputStream().read() < 0 ? ReadOutcome.EOF : ReadOutcome.DATA;
    } catch (SocketTimeoutException e) {
      return ReadOutcome.TIMEOUT;
    } catch (SocketException e) {
      return ReadOutcome.RESET;
    } finally {
      if (!client.isClosed()) {
        client.setSoTimeout((int) WAIT.toMillis());
      }
    }
  }

  private static List<Thread> liveThreads(String prefix) {
    return Thread.getAllStackTraces().keySet().stream()
        .filter(t -> t.getName().startsWith(prefix) && t.isAlive())
        .toList();
  }

  private static void eventually(BooleanSupplier condition) throws InterruptedException {
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (!condition.getAsBoolean() && System.nanoTime() < deadline) {
      Thread.sleep(10);
    }
  }

  /** Echoes every byte back on each connection, and remembers the port each client came from. */
  private static final class EchoServer implements AutoCloseable {
    private final ServerSocket listener;
    private final List<Integer> remotePorts = new CopyOnWriteArrayList<>();
    private final List<Socket> accepted = new CopyOnWriteArrayList<>();

    EchoServer() throws IOException {
      listener = new ServerSocket(0, 50, InetAddress.getByName("127.0.0.1"));
      Thread acceptor = new Thread(this::acceptLoop, "echo-server");
      acceptor.setDaemon(true);
      acceptor.start();
    }

    int port() {
      return listener.getLocalPort();
    }

    private void acceptLoop() {
      while (true) {
        Socket socket;
        try {
          socket = listener.accept();
        } catch (IOException e) {
          return;
        }
        remotePorts.add(socket.getPort());
        accepted.add(socket);
        Thread echoing = new Thread(() -> echo(socket), "echo-server " + socket.getPort());
        echoing.setDaemon(true);
        echoing.start();
      }
    }

    private static void echo(Socket socket) {
      try (socket) {
        InputStream in = socket.getInputStream();
        OutputStream out = socket.getOutputStream();
        byte[] buffer = new byte[8192];
        int n;
        while ((n = in.read(buffer)) >= 0) {
          out.write(buffer, 0, n);
          out.flush();
        }
      } catch (IOException e) {
        // the client went away
      }
    }

    @Override
    public void close() throws IOException {
      listener.close();
      for (Socket socket : accepted) {
        socket.close();
      }
    }
  }
}
